import Foundation
import Store
import StoreFixtures
import Testing

/// Under `always`, records appended by a thread that runs rounds (an event loop) wake the writer once, at the
/// round's end: the round's records share one write and one fsync.
@Suite struct AppendLogRoundWakeTests {
    @Test func always_onARoundThread_aRoundsRecordsShareOneFsync() throws {
        let log = try AppendLog(directory: temporaryDirectory(), fileSystem: PosixFileSystem(), policy: .always, nextSeq: 1)
        defer { log.close() }
        log.wakeWriterAtRoundEnds(isRoundThread: { true })
        let before = log.fsyncs
        var last: UInt64 = 0
        for record in 0..<50 { last = try log.append([UInt8(record)]) }
        // Nothing woke the writer: the round has not ended.
        #expect(log.fsyncs == before)
        log.flush(handingOffAbove: AppendLog.handOffAbove)
        try log.waitAcknowledged(last)
        #expect(log.fsyncs == before + 1)
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
