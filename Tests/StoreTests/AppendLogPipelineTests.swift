import Foundation
import StoreFixtures
import Synchronization
import Testing

@testable import Store

/// A loop committing its own rounds under `always`, pipelined: the round writes its batch, leaves the fsync out and
/// returns to its sockets; the batch is acknowledged by a task on that loop once the disk returns. Here the loop is
/// a task list the test runs by hand, and the disk an fsync that waits for the test's word.
@Suite struct AppendLogPipelineTests {
    /// The rig of each test: a held disk, a loop the test drives, the log, and what the completions said.
    struct Rig {
        static let record = MutationCodec.encode(Mutation(user: "u", now: t0, actions: [.increment(counter: "k", by: 1)]))
        let disk = GatedFsync()
        let loop = TaskList()
        let events = Events()
        /// What the loop says when asked whether it has other work waiting (`pipelineRoundFsyncs`): yes, unless set.
        let otherWork = OtherWork()
        let log: AppendLog

        /// `onLoop: false`: the runner gives none, as off a loop.
        init(loops: Int = 1, onLoop: Bool = true) throws {
            log = try AppendLog(directory: temporaryDirectory(), fileSystem: disk, policy: .always, nextSeq: 1, writersCommit: true)
            log.wakeWriterAtRoundEnds(isRoundThread: { true })
            let loop = loop
            let otherWork = otherWork
            log.pipelineRoundFsyncs(loops: loops, runner: { onLoop ? loop.runner : nil }, otherWorkReady: { otherWork.waiting.withLock { $0 } })
        }

        func append(_ count: Int) throws {
            for _ in 0..<count {
                let seq = try log.append(Self.record)
                log.whenAcknowledged(seq) { [events] result in
                    events.list.withLock { $0.append((try? result.get()) == seq ? "acknowledged \(seq)" : "failed \(seq)") }
                }
            }
        }

        /// The round's end, which leaves its fsync out: returns once the fsync started.
        func roundEndLeavingTheFsyncOut() {
            log.flushRoundHere()
            #expect(disk.started.wait(timeout: .now() + 10) == .success)
        }

        /// The held fsync returns, and the task it posts for the loop runs (here, on the test's thread).
        func diskReturnsAndTheLoopRunsItsTask() throws {
            disk.open()
            let task = try #require(loop.next(timeout: 10))
            task()
        }

        var said: [String] { events.list.withLock { $0 } }

        /// What the completions said once `count` of them did, or ten seconds passed (completions on another thread).
        func said(waitingFor count: Int) -> [String] {
            let deadline = Date().addingTimeInterval(10)
            while events.list.withLock({ $0.count }) < count, Date() < deadline { usleep(1000) }
            return said
        }
    }

    /// The round's flush returns with its fsync still out (the disk is held until after it returned): nothing is
    /// acknowledged until the fsync returns, and then only by the loop's task, on the thread that runs it.
    @Test func roundEnd_returnsWithTheFsyncOut_andTheLoopsTaskAcknowledges() throws {
        let rig = try Rig()
        defer { rig.log.close() }
        try rig.append(3)
        rig.roundEndLeavingTheFsyncOut()
        #expect(rig.said.isEmpty)
        rig.disk.open()
        let task = try #require(rig.loop.next(timeout: 10))
        #expect(rig.said.isEmpty, "acknowledged before the loop ran the task")
        task()
        #expect(rig.said == ["acknowledged 1", "acknowledged 2", "acknowledged 3"])
        #expect(rig.log.fsyncs == 1)
        #expect(!rig.disk.gaveUp.withLock { $0 })
    }

    /// Records queued while a batch's fsync is out wait for it (a round's end does not write them), and the task
    /// that acknowledges the batch writes them first, so the second fsync is out before the first batch's
    /// completions run. The second batch is acknowledged by the next task.
    @Test func recordsQueuedMeanwhile_areTheNextBatch_startedBeforeTheFirstsCompletions() throws {
        let rig = try Rig()
        defer { rig.log.close() }
        try rig.append(1)
        rig.roundEndLeavingTheFsyncOut()
        try rig.append(2)
        rig.log.flushRoundHere()
        #expect(rig.log.hasUnflushed, "a round's end wrote records while a batch held the file")
        #expect(!rig.log.roundWouldCommit, "a round would gather input for a commit that waits anyway")
        let secondOut = Mutex<Bool?>(nil)
        let disk = rig.disk
        rig.log.whenAcknowledged(1) { _ in
            // Up to five seconds: the fsync thread signals once it runs; a batch not yet started never does.
            secondOut.withLock { $0 = disk.started.wait(timeout: .now() + 5) == .success }
        }
        try rig.diskReturnsAndTheLoopRunsItsTask()
        #expect(secondOut.withLock { $0 } == true, "the next batch's fsync was not out when the first one's completions ran")
        #expect(rig.said == ["acknowledged 1"])
        try rig.diskReturnsAndTheLoopRunsItsTask()
        #expect(rig.said == ["acknowledged 1", "acknowledged 2", "acknowledged 3"])
        #expect(rig.log.fsyncs == 2)
    }

    /// The fsync left out fails: every record of the batch fails, none is acknowledged, and the log refuses more.
    @Test func aFailedFsync_failsTheBatch() throws {
        let rig = try Rig()
        defer { rig.log.close() }
        rig.disk.fails.withLock { $0 = true }
        try rig.append(2)
        rig.roundEndLeavingTheFsyncOut()
        try rig.diskReturnsAndTheLoopRunsItsTask()
        #expect(rig.said == ["failed 1", "failed 2"])
        #expect(rig.log.failed != nil)
        #expect(throws: StorageFailure.self) { try rig.log.append(Rig.record) }
    }

    /// A loop that stops before it runs the task (the server stopped first) never acknowledges its batch: closing
    /// the log finishes it instead, so the close returns and the records are acknowledged, not lost or hung.
    @Test func aLoopThatNeverRunsTheTask_theCloseFinishesTheBatch() throws {
        let rig = try Rig()
        try rig.append(2)
        rig.roundEndLeavingTheFsyncOut()
        rig.disk.open()
        // The task is dropped, as a stopped loop drops it.
        _ = try #require(rig.loop.next(timeout: 10))
        let closed = DispatchSemaphore(value: 0)
        let log = rig.log
        Thread.detachNewThread {
            log.close()
            closed.signal()
        }
        try #require(closed.wait(timeout: .now() + 20) == .success, "close hung on a batch its loop never finished")
        #expect(rig.said(waitingFor: 2) == ["acknowledged 1", "acknowledged 2"])
    }

    /// Found by review: the batch's end told a next batch that failed at once (its write refused) before the
    /// batch it had just acknowledged. The earlier batch is told first.
    @Test func aNextBatchThatFailsAtOnce_isToldAfterTheBatchBeforeIt() throws {
        let rig = try Rig()
        defer { rig.log.close() }
        try rig.append(1)
        rig.roundEndLeavingTheFsyncOut()
        try rig.append(1)
        rig.disk.failsWrites.withLock { $0 = true }
        try rig.diskReturnsAndTheLoopRunsItsTask()
        #expect(rig.said == ["acknowledged 1", "failed 2"])
    }

    /// Found by review: records from a thread off the loop (a clock's fire), queued while the loop's batch held
    /// the file, waited for that batch's end alone; a loop that stopped first stranded them until the close. They
    /// go to the writer thread, which finishes the stopped loop's batch and then writes them.
    @Test func aWriteOffTheLoop_whileAStoppedLoopsBatchHoldsTheFile_isAcknowledgedWithoutAClose() throws {
        let rig = try Rig()
        defer { rig.log.close() }
        try rig.append(1)
        rig.roundEndLeavingTheFsyncOut()
        rig.disk.open()
        // The loop stops: its task is dropped.
        _ = try #require(rig.loop.next(timeout: 10))
        try rig.append(1)
        rig.log.flush(handingOffAbove: AppendLog.handOffAbove)
        rig.disk.open()
        #expect(rig.said(waitingFor: 2) == ["acknowledged 1", "acknowledged 2"])
    }

    /// A loop with nothing else ready fsyncs its batch itself, as Redis does: acknowledged before the round's end
    /// returns, no task for the loop, no other thread woken. The batch's pages are started out to the disk first,
    /// and the work handed to `whileSyncing` runs while they go, before the fsync waits for the rest.
    @Test func nothingElseReady_theLoopFsyncsItself_writebackStartedFirst_earlyWorkMeanwhile() throws {
        let rig = try Rig()
        defer { rig.log.close() }
        rig.otherWork.waiting.withLock { $0 = false }
        try rig.append(2)
        let disk = rig.disk
        rig.log.whileSyncing { disk.calls.withLock { $0.append("early work") } }
        for seq: UInt64 in [1, 2] { rig.log.whenAcknowledged(seq) { _ in disk.calls.withLock { $0.append("acknowledged") } } }
        rig.disk.open()
        rig.log.flushRoundHere()
        #expect(rig.said == ["acknowledged 1", "acknowledged 2"])
        #expect(rig.loop.next(timeout: 0.1) == nil, "a task was posted for a batch fsynced on the loop")
        #expect(disk.calls.withLock { $0 } == ["writeback", "early work", "sync", "acknowledged", "acknowledged"])
        #expect(rig.log.fsyncs == 1)
    }

    /// Found by review: a left-out batch's task starts the next batch before it runs the first one's completions;
    /// fsynced on the loop (nothing else waiting), that batch held the first one's answers, already durable, for a
    /// whole fsync more. It is left out instead, and the first batch is acknowledged while its fsync is out.
    @Test func theBatchAfterALeftOutOne_isLeftOutToo_itsPredecessorAcknowledgedMeanwhile() throws {
        let rig = try Rig()
        defer { rig.log.close() }
        try rig.append(1)
        rig.roundEndLeavingTheFsyncOut()
        try rig.append(1)
        rig.otherWork.waiting.withLock { $0 = false }
        // Past the batches that work found waiting keeps out: this batch's own decision is what is tested.
        rig.log.batchesLeftOut = 0
        try rig.diskReturnsAndTheLoopRunsItsTask()
        #expect(rig.said == ["acknowledged 1"])
        #expect(rig.disk.started.wait(timeout: .now() + 10) == .success, "the second batch's fsync never started")
        try rig.diskReturnsAndTheLoopRunsItsTask()
        #expect(rig.said == ["acknowledged 1", "acknowledged 2"])
        #expect(!rig.disk.gaveUp.withLock { $0 })
    }

    /// A disk that stalls keeps the loop from waiting on it: after an fsync made here took 30 ms (past the limit,
    /// `AppendLog.fsyncHereLimit`, in the average), the next batch is left out though nothing else waits.
    @Test func afterASlowFsyncMadeHere_theNextBatchIsLeftOut() throws {
        let rig = try Rig()
        defer { rig.log.close() }
        rig.otherWork.waiting.withLock { $0 = false }
        try rig.append(1)
        let disk = rig.disk
        Thread.detachNewThread {
            Thread.sleep(forTimeInterval: 0.03)
            disk.open()
        }
        rig.log.flushRoundHere()
        #expect(rig.said == ["acknowledged 1"])
        try rig.append(1)
        rig.roundEndLeavingTheFsyncOut()
        #expect(rig.said == ["acknowledged 1"], "the round's end waited for the fsync")
        try rig.diskReturnsAndTheLoopRunsItsTask()
        #expect(rig.said == ["acknowledged 1", "acknowledged 2"])
        #expect(!rig.disk.gaveUp.withLock { $0 })
    }

    /// Work found waiting keeps the next batches out too (`AppendLog.leftOutAfterWaitingWork`): a load of reads and
    /// writes has rounds of writes alone now and then. Past them, with nothing waiting, a batch is fsynced here.
    @Test func workFoundWaiting_keepsTheNextBatchesOut_thenOneIsFsyncedHere() throws {
        let rig = try Rig()
        defer { rig.log.close() }
        try rig.append(1)
        rig.roundEndLeavingTheFsyncOut()
        try rig.diskReturnsAndTheLoopRunsItsTask()
        rig.otherWork.waiting.withLock { $0 = false }
        for _ in 0..<AppendLog.leftOutAfterWaitingWork {
            try rig.append(1)
            rig.roundEndLeavingTheFsyncOut()
            try rig.diskReturnsAndTheLoopRunsItsTask()
        }
        let leftOut = 1 + AppendLog.leftOutAfterWaitingWork
        #expect(rig.said.count == leftOut)
        try rig.append(1)
        rig.disk.open()
        rig.log.flushRoundHere()
        #expect(rig.said.count == leftOut + 1, "the batch after them was not acknowledged when the round ended")
        #expect(rig.loop.next(timeout: 0.1) == nil)
        #expect(rig.log.fsyncs == leftOut + 1)
        #expect(!rig.disk.gaveUp.withLock { $0 })
    }

    /// The fsync made here fails: every record of the batch fails, none is acknowledged, and the log refuses more.
    @Test func aFailedFsyncMadeHere_failsTheBatch() throws {
        let rig = try Rig()
        defer { rig.log.close() }
        rig.otherWork.waiting.withLock { $0 = false }
        rig.disk.fails.withLock { $0 = true }
        try rig.append(2)
        rig.disk.open()
        rig.log.flushRoundHere()
        #expect(rig.said == ["failed 1", "failed 2"])
        #expect(rig.log.failed != nil)
        #expect(throws: StorageFailure.self) { try rig.log.append(Rig.record) }
    }

    /// Not pipelined, a round's end commits as before: written, fsynced and acknowledged before it returns, with
    /// no task for the loop. Off a loop (the runner gives none); and with several loops, found by review: each
    /// batch's end started the next with every loop's queued records, so one loop committed and answered the
    /// other's writes without end, where a round's end keeps to two batches.
    @Test(arguments: [(1, false), (2, true)])
    func notPipelined_theRoundEndWaitsForItsFsync(loops: Int, onLoop: Bool) throws {
        let rig = try Rig(loops: loops, onLoop: onLoop)
        defer { rig.log.close() }
        try rig.append(2)
        rig.disk.open()
        rig.log.flushRoundHere()
        #expect(rig.said == ["acknowledged 1", "acknowledged 2"])
        #expect(rig.loop.next(timeout: 0.1) == nil)
    }
}

/// Whether the loop has other work waiting, as the test sets it.
final class OtherWork: Sendable {
    let waiting = Mutex(true)
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
/// then it gives up and goes on), and fails when `fails`; writes fail when `failsWrites`. Writebacks started and
/// syncs are noted in `calls`.
final class GatedFsync: ForwardingFileSystem {
    let inner: FileSystem = PosixFileSystem()
    let started = DispatchSemaphore(value: 0)
    let calls = Mutex<[String]>([])
    private let gate = DispatchSemaphore(value: 0)
    let fails = Mutex(false)
    let failsWrites = Mutex(false)
    let gaveUp = Mutex(false)

    func open() { gate.signal() }

    func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws(IOError) -> Int {
        if failsWrites.withLock({ $0 }) { throw IOError(call: "write", path: path, code: EIO) }
        return try inner.write(fd, bytes, path: path)
    }

    func startWriteback(_ fd: Int32) {
        calls.withLock { $0.append("writeback") }
        inner.startWriteback(fd)
    }

    func syncData(_ fd: Int32, path: String) throws(IOError) {
        calls.withLock { $0.append("sync") }
        started.signal()
        if gate.wait(timeout: .now() + 10) == .timedOut { gaveUp.withLock { $0 = true } }
        if fails.withLock({ $0 }) { throw IOError(call: "fdatasync", path: path, code: EIO) }
        try inner.fsync(fd, path: path)
    }
}
