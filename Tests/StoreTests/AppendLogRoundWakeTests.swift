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
        // What a round about to commit asks before it gathers more input.
        #expect(log.hasUnflushed)
        log.flushRoundHere()
        #expect(!log.hasUnflushed)
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

    /// Found by review: a loop committing its own round kept writing, and fsyncing, every batch other loops queued
    /// meanwhile, for as long as they kept queueing, away from its own connections. Here each fsync queues one more
    /// record (another loop's), forty times: the round's flush writes at most two batches on its thread and hands
    /// the rest to the writer thread, which acknowledges them all.
    @Test func roundFlushedHere_writesAtMostTwoBatches_andLeavesTheRestToTheWriter() throws {
        let disk = QueueingOnFsync()
        let log = try AppendLog(
            directory: temporaryDirectory(), fileSystem: disk, policy: .always, nextSeq: 1, writersCommit: true)
        defer { log.close() }
        log.wakeWriterAtRoundEnds(isRoundThread: { true })
        let record = MutationCodec.encode(Mutation(user: "u", now: t0, actions: [.increment(counter: "k", by: 1)]))
        disk.onFsync.withLock { $0 = { _ = try? log.append(record) } }
        _ = try log.append(record)
        let caller = pthread_self()
        disk.caller.withLock { $0 = caller }
        log.flushRoundHere()
        #expect(disk.fsyncsOnCaller.withLock { $0 } <= 2)
        let done = DispatchSemaphore(value: 0)
        log.whenAcknowledged(41) { _ in done.signal() }
        #expect(done.wait(timeout: .now() + 30) == .success)
    }
}

/// The real file system, except that each of the first forty fsyncs runs `onFsync` (another loop queueing a
/// record while this one syncs), and fsyncs on `caller`'s thread are counted.
final class QueueingOnFsync: FileSystem {
    let real = PosixFileSystem()
    let onFsync = Mutex<(@Sendable () -> Void)?>(nil)
    let remaining = Mutex(40)
    let caller = Mutex<pthread_t?>(nil)
    let fsyncsOnCaller = Mutex(0)

    func openForAppend(_ path: String) throws(IOError) -> Int32 { try real.openForAppend(path) }
    func openForWrite(_ path: String) throws(IOError) -> Int32 { try real.openForWrite(path) }
    func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws(IOError) -> Int { try real.write(fd, bytes, path: path) }
    func fsync(_ fd: Int32, path: String) throws(IOError) {
        try real.fsync(fd, path: path)
        if let caller = caller.withLock({ $0 }), pthread_equal(caller, pthread_self()) != 0 { fsyncsOnCaller.withLock { $0 += 1 } }
        let more = remaining.withLock { count -> Bool in
            count -= 1
            return count >= 0
        }
        if more, let hook = onFsync.withLock({ $0 }) { hook() }
    }
    func close(_ fd: Int32) { real.close(fd) }
    func rename(_ from: String, _ to: String) throws(IOError) { try real.rename(from, to) }
    func remove(_ path: String) throws(IOError) { try real.remove(path) }
    func fsyncDirectory(_ path: String) throws(IOError) { try real.fsyncDirectory(path) }
    func read(_ path: String) throws(IOError) -> [UInt8] { try real.read(path) }
    func readChunks(_ path: String, chunkSize: Int, _ body: (UnsafeRawBufferPointer) -> Bool) throws(IOError) {
        try real.readChunks(path, chunkSize: chunkSize, body)
    }
    func list(_ directory: String) throws(IOError) -> [String] { try real.list(directory) }
    func truncate(_ path: String, to size: Int) throws(IOError) { try real.truncate(path, to: size) }
    func createDirectory(_ path: String) throws(IOError) { try real.createDirectory(path) }
    func size(_ path: String) -> Int? { real.size(path) }
}
