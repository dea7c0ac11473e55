import Foundation
import StoreFixtures
import Synchronization
import Testing

@testable import Store

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

    /// `--log-commit loop` (one CPU, `writersCommit`): the round's flush writes and, under `always`, fsyncs the
    /// whole round on the calling thread, and every completion has run on it before the flush returns: the writer
    /// thread takes none of it, even when it happens to be awake. Under `interval` and `never` the same holds
    /// without the fsync.
    @Test(arguments: [FsyncPolicy.always, .interval, .never])
    func roundFlushedHere_writesFsyncsAndCompletesOnTheCallingThread(policy: FsyncPolicy) throws {
        let directory = temporaryDirectory()
        let log = try AppendLog(directory: directory, fileSystem: PosixFileSystem(), policy: policy, nextSeq: 1, writersCommit: true)
        log.wakeWriterAtRoundEnds(isRoundThread: { true })
        let caller = pthread_self()
        let before = log.fsyncs
        let completed = Mutex<[(seq: UInt64, here: Bool)]>([])
        for record in 0..<50 {
            let seq = try log.append(MutationCodec.encode(Mutation(user: "u", now: t0, actions: [.increment(counter: "k", by: record)])))
            let caller = caller
            log.whenAcknowledged(seq) { result in
                let acknowledged = (try? result.get()) == seq
                completed.withLock { $0.append((seq, pthread_equal(pthread_self(), caller) != 0 && acknowledged)) }
            }
        }
        #expect(completed.withLock { $0.isEmpty })
        log.flushRoundHere()
        let settled = completed.withLock { $0 }
        #expect(settled.map(\.seq) == Array(1...50))
        #expect(settled.allSatisfy { $0.here })
        if policy == .always { #expect(log.fsyncs - before == 1) }
        log.close()
        // Written: a reopened log continues after the fifty.
        let reopened = try Database(options: Database.Options(directory: directory, fsync: .never, limits: .unlimited))
        #expect(reopened.recovery.lastSeq == 50)
    }

    /// With writers committing, a thread without rounds under `always` flushes and fsyncs its own record at once.
    @Test func writersCommit_offARoundThread_aRecordIsFsyncedByItsWriter() throws {
        let log = try AppendLog(
            directory: temporaryDirectory(), fileSystem: PosixFileSystem(), policy: .always, nextSeq: 1, writersCommit: true)
        defer { log.close() }
        log.wakeWriterAtRoundEnds(isRoundThread: { false })
        let before = log.fsyncs
        let seq = try log.append(MutationCodec.encode(Mutation(user: "u", now: t0, actions: [.increment(counter: "k", by: 1)])))
        log.flush(handingOffAbove: AppendLog.handOffAbove)
        let here = Mutex(false)
        log.whenAcknowledged(seq) { _ in here.withLock { $0 = true } }
        #expect(here.withLock { $0 })
        #expect(log.fsyncs - before == 1)
    }
}
