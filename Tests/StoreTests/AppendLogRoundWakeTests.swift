import Foundation
import Store
import StoreFixtures
import Testing

/// Under `always`, records appended by a thread that runs rounds (an event loop) wake the writer at the round's
/// end, so the round's records share writes and fsyncs; records from other threads wake it at once.
@Suite struct AppendLogRoundWakeTests {
    /// The round's flush is what wakes the writer for a round thread's records: they are all written and
    /// acknowledged once it runs, in fewer fsyncs than records. (How few depends on where the writer thread was
    /// when the round began, so only the bound is pinned here; the records per fsync are a benchmark's figure.)
    @Test func always_onARoundThread_theRoundsFlushWritesItsRecords() throws {
        let log = try AppendLog(directory: temporaryDirectory(), fileSystem: PosixFileSystem(), policy: .always, nextSeq: 1)
        defer { log.close() }
        log.wakeWriterAtRoundEnds(isRoundThread: { true })
        let before = log.fsyncs
        var last: UInt64 = 0
        for record in 0..<200 { last = try log.append([UInt8(truncatingIfNeeded: record)]) }
        log.flush(handingOffAbove: AppendLog.handOffAbove)
        let done = DispatchSemaphore(value: 0)
        log.whenAcknowledged(last) { _ in done.signal() }
        #expect(done.wait(timeout: .now() + 30) == .success)
        #expect(log.fsyncs - before < 200)
    }

    /// A thread without rounds (a clock's fire, a tool) is not flushed by anyone later: its record wakes the writer.
    @Test func always_offARoundThread_aRecordIsWrittenWithoutARoundEnd() throws {
        let log = try AppendLog(directory: temporaryDirectory(), fileSystem: PosixFileSystem(), policy: .always, nextSeq: 1)
        defer { log.close() }
        log.wakeWriterAtRoundEnds(isRoundThread: { false })
        let seq = try log.append([1])
        let done = DispatchSemaphore(value: 0)
        log.whenAcknowledged(seq) { _ in done.signal() }
        #expect(done.wait(timeout: .now() + 30) == .success)
    }
}
