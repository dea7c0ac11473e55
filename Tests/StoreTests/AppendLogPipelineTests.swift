import Foundation
import StoreFixtures
import Synchronization
import Testing

@testable import Store

/// A loop committing its own rounds under `always`, pipelined: the round writes its batch, leaves the fsync out and
/// returns to its sockets; the batch is acknowledged by a task on that loop once the disk returns. Here the loop is
/// a task list the test runs by hand, and the disk an fsync that waits for the test's word.
@Suite struct AppendLogPipelineTests {
    static let record = MutationCodec.encode(Mutation(user: "u", now: t0, actions: [.increment(counter: "k", by: 1)]))

    /// Returns a log whose round ends pipeline their fsyncs onto `loop`.
    private func pipelinedLog(_ disk: GatedFsync, _ loop: TaskList) throws -> AppendLog {
        let log = try AppendLog(directory: temporaryDirectory(), fileSystem: disk, policy: .always, nextSeq: 1, writersCommit: true)
        log.wakeWriterAtRoundEnds(isRoundThread: { true })
        log.pipelineRoundFsyncs(loops: 1, runner: { loop.runner })
        return log
    }

    private func append(_ log: AppendLog, _ count: Int, into events: Events) throws {
        for _ in 0..<count {
            let seq = try log.append(Self.record)
            log.whenAcknowledged(seq) { result in
                events.list.withLock { $0.append((try? result.get()) == seq ? "acknowledged \(seq)" : "failed \(seq)") }
            }
        }
    }

    /// The round's flush returns with its fsync still out (the disk is held until after it returned): nothing is
    /// acknowledged until the fsync returns, and then only by the loop's task, on the thread that runs it.
    @Test func roundEnd_returnsWithTheFsyncOut_andTheLoopsTaskAcknowledges() throws {
        let disk = GatedFsync()
        let loop = TaskList()
        let log = try pipelinedLog(disk, loop)
        defer { log.close() }
        let events = Events()
        try append(log, 3, into: events)
        log.flushRoundHere()
        #expect(disk.started.wait(timeout: .now() + 10) == .success)
        #expect(events.list.withLock { $0.isEmpty })
        disk.open()
        let task = try #require(loop.next(timeout: 10))
        #expect(events.list.withLock { $0.isEmpty }, "acknowledged before the loop ran the task")
        task()
        #expect(events.list.withLock { $0 } == ["acknowledged 1", "acknowledged 2", "acknowledged 3"])
        #expect(log.fsyncs == 1)
        #expect(!disk.gaveUp.withLock { $0 })
    }

    /// Records queued while a batch's fsync is out wait for it (a round's end does not write them), and the task
    /// that acknowledges the batch writes them first, so the second fsync is out before the first batch's
    /// completions run. The second batch is acknowledged by the next task.
    @Test func recordsQueuedMeanwhile_areTheNextBatch_startedBeforeTheFirstsCompletions() throws {
        let disk = GatedFsync()
        let loop = TaskList()
        let log = try pipelinedLog(disk, loop)
        defer { log.close() }
        let events = Events()
        try append(log, 1, into: events)
        log.flushRoundHere()
        #expect(disk.started.wait(timeout: .now() + 10) == .success)
        try append(log, 2, into: events)
        log.flushRoundHere()
        #expect(log.hasUnflushed, "a round's end wrote records while a batch held the file")
        #expect(!log.roundWouldCommit, "a round would gather input for a commit that waits anyway")
        let secondOut = Mutex<Bool?>(nil)
        log.whenAcknowledged(1) { _ in
            // Up to five seconds: the fsync thread signals once it runs; a batch not yet started never does.
            secondOut.withLock { $0 = disk.started.wait(timeout: .now() + 5) == .success }
        }
        disk.open()
        let task1 = try #require(loop.next(timeout: 10))
        task1()
        #expect(secondOut.withLock { $0 } == true, "the next batch's fsync was not out when the first one's completions ran")
        #expect(events.list.withLock { $0 } == ["acknowledged 1"])
        disk.open()
        let task2 = try #require(loop.next(timeout: 10))
        task2()
        #expect(events.list.withLock { $0 } == ["acknowledged 1", "acknowledged 2", "acknowledged 3"])
        #expect(log.fsyncs == 2)
    }

    /// The fsync left out fails: every record of the batch fails, none is acknowledged, and the log refuses more.
    @Test func aFailedFsync_failsTheBatch() throws {
        let disk = GatedFsync()
        disk.fails.withLock { $0 = true }
        let loop = TaskList()
        let log = try pipelinedLog(disk, loop)
        defer { log.close() }
        let events = Events()
        try append(log, 2, into: events)
        log.flushRoundHere()
        disk.open()
        let task3 = try #require(loop.next(timeout: 10))
        task3()
        #expect(events.list.withLock { $0 } == ["failed 1", "failed 2"])
        #expect(log.failed != nil)
        #expect(throws: StorageFailure.self) { try log.append(Self.record) }
    }

    /// A loop that stops before it runs the task (the server stopped first) never acknowledges its batch: closing
    /// the log finishes it instead, so the close returns and the records are acknowledged, not lost or hung.
    @Test func aLoopThatNeverRunsTheTask_theCloseFinishesTheBatch() throws {
        let disk = GatedFsync()
        let loop = TaskList()
        let log = try pipelinedLog(disk, loop)
        let events = Events()
        try append(log, 2, into: events)
        log.flushRoundHere()
        #expect(disk.started.wait(timeout: .now() + 10) == .success)
        disk.open()
        // The task is dropped, as a stopped loop drops it.
        _ = try #require(loop.next(timeout: 10))
        let closed = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            log.close()
            closed.signal()
        }
        try #require(closed.wait(timeout: .now() + 20) == .success, "close hung on a batch its loop never finished")
        let deadline = Date().addingTimeInterval(10)
        while events.list.withLock({ $0.count }) < 2, Date() < deadline { usleep(1000) }
        #expect(events.list.withLock { $0 } == ["acknowledged 1", "acknowledged 2"])
    }

    /// Found by review: the batch's end told a next batch that failed at once (its write refused) before the
    /// batch it had just acknowledged. The earlier batch is told first.
    @Test func aNextBatchThatFailsAtOnce_isToldAfterTheBatchBeforeIt() throws {
        let disk = GatedFsync()
        let loop = TaskList()
        let log = try pipelinedLog(disk, loop)
        defer { log.close() }
        let events = Events()
        try append(log, 1, into: events)
        log.flushRoundHere()
        #expect(disk.started.wait(timeout: .now() + 10) == .success)
        try append(log, 1, into: events)
        disk.failsWrites.withLock { $0 = true }
        disk.open()
        let task = try #require(loop.next(timeout: 10))
        task()
        #expect(events.list.withLock { $0 } == ["acknowledged 1", "failed 2"])
    }

    /// Found by review: records from a thread off the loop (a clock's fire), queued while the loop's batch held
    /// the file, waited for that batch's end alone; a loop that stopped first stranded them until the close. They
    /// go to the writer thread, which finishes the stopped loop's batch and then writes them.
    @Test func aWriteOffTheLoop_whileAStoppedLoopsBatchHoldsTheFile_isAcknowledgedWithoutAClose() throws {
        let disk = GatedFsync()
        let loop = TaskList()
        let log = try pipelinedLog(disk, loop)
        defer { log.close() }
        let events = Events()
        try append(log, 1, into: events)
        log.flushRoundHere()
        #expect(disk.started.wait(timeout: .now() + 10) == .success)
        disk.open()
        // The loop stops: its task is dropped.
        _ = try #require(loop.next(timeout: 10))
        try append(log, 1, into: events)
        log.flush(handingOffAbove: AppendLog.handOffAbove)
        disk.open()
        let deadline = Date().addingTimeInterval(10)
        while events.list.withLock({ $0.count }) < 2, Date() < deadline { usleep(1000) }
        #expect(events.list.withLock { $0 } == ["acknowledged 1", "acknowledged 2"])
    }

    /// Off a loop (the runner gives none), a round's end commits as before: written, fsynced and acknowledged
    /// before it returns.
    @Test func offALoop_theRoundEndWaitsForItsFsync() throws {
        let disk = GatedFsync()
        let log = try AppendLog(directory: temporaryDirectory(), fileSystem: disk, policy: .always, nextSeq: 1, writersCommit: true)
        defer { log.close() }
        log.wakeWriterAtRoundEnds(isRoundThread: { true })
        log.pipelineRoundFsyncs(loops: 1, runner: { nil })
        let events = Events()
        try append(log, 2, into: events)
        disk.open()
        log.flushRoundHere()
        #expect(events.list.withLock { $0 } == ["acknowledged 1", "acknowledged 2"])
    }

    /// Found by review: with two loops, each batch's end started the next with every loop's queued records, so one
    /// loop committed and answered the other's writes without end. Pipelining is declined for more than one loop:
    /// the round's end waits for its fsync and keeps the two-batch bound.
    @Test func withSeveralLoops_theRoundEndWaitsForItsFsync() throws {
        let disk = GatedFsync()
        let loop = TaskList()
        let log = try AppendLog(directory: temporaryDirectory(), fileSystem: disk, policy: .always, nextSeq: 1, writersCommit: true)
        defer { log.close() }
        log.wakeWriterAtRoundEnds(isRoundThread: { true })
        log.pipelineRoundFsyncs(loops: 2, runner: { loop.runner })
        let events = Events()
        try append(log, 2, into: events)
        disk.open()
        log.flushRoundHere()
        #expect(events.list.withLock { $0 } == ["acknowledged 1", "acknowledged 2"])
        #expect(loop.next(timeout: 0.1) == nil)
    }
}

/// What the completions said, in order.
final class Events: Sendable {
    let list = Mutex<[String]>([])
}

/// The tasks a loop would run, kept for the test to run (or drop) by hand.
final class TaskList: Sendable {
    private let tasks = Mutex<[@Sendable () -> Void]>([])
    private let posted = DispatchSemaphore(value: 0)

    var runner: AppendLog.RoundRunner {
        { [self] task in
            tasks.withLock { $0.append(task) }
            posted.signal()
        }
    }

    /// The next task posted, waiting up to `timeout` seconds for it.
    func next(timeout: Double) -> (@Sendable () -> Void)? {
        guard posted.wait(timeout: .now() + timeout) == .success else { return nil }
        return tasks.withLock { $0.removeFirst() }
    }
}

/// The real file system, except that each fsync signals `started`, then waits for one `open()` (up to ten seconds,
/// then it gives up and goes on), and fails when `fails`; writes fail when `failsWrites`.
final class GatedFsync: ForwardingFileSystem {
    let inner: FileSystem = PosixFileSystem()
    let started = DispatchSemaphore(value: 0)
    private let gate = DispatchSemaphore(value: 0)
    let fails = Mutex(false)
    let failsWrites = Mutex(false)
    let gaveUp = Mutex(false)

    func open() { gate.signal() }

    func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws(IOError) -> Int {
        if failsWrites.withLock({ $0 }) { throw IOError(call: "write", path: path, code: EIO) }
        return try inner.write(fd, bytes, path: path)
    }

    func syncData(_ fd: Int32, path: String) throws(IOError) {
        started.signal()
        if gate.wait(timeout: .now() + 10) == .timedOut { gaveUp.withLock { $0 = true } }
        if fails.withLock({ $0 }) { throw IOError(call: "fdatasync", path: path, code: EIO) }
        try inner.fsync(fd, path: path)
    }
}
