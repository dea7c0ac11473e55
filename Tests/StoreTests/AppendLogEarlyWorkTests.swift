import Foundation
import StoreFixtures
import Synchronization
import Testing

@testable import Store

/// A loop committing its own round under `always` hands the fsync to a helper thread and does the work callers
/// handed over (`whileSyncing`: their answers' computation) while the disk is busy; the acknowledgements still
/// wait for the fsync.
@Suite struct AppendLogEarlyWorkTests {
    static let record = MutationCodec.encode(Mutation(user: "u", now: t0, actions: [.increment(counter: "k", by: 1)]))

    /// The work runs while the fsync is out: it sees the fsync started and not returned, and lets it return. Run
    /// after the fsync instead, it would find none out (the disk waits for it in vain, then gives up). The
    /// completions follow, on the calling thread, after the one fsync.
    @Test func earlyWork_runsWhileTheRoundsFsyncIsOut_thenTheCompletions() throws {
        let disk = HeldFsync()
        let log = try AppendLog(directory: temporaryDirectory(), fileSystem: disk, policy: .always, nextSeq: 1, writersCommit: true)
        defer { log.close() }
        log.wakeWriterAtRoundEnds(isRoundThread: { true })
        #expect(log.runsWorkWhileSyncing)
        let events = Mutex<[String]>([])
        let caller = pthread_self()
        for _ in 0..<3 {
            let seq = try log.append(Self.record)
            log.whileSyncing {
                let out = disk.started.wait(timeout: .now() + 5) == .success
                events.withLock { $0.append(out ? "work during fsync \(seq)" : "work without fsync \(seq)") }
                if out { disk.started.signal() }
            }
            log.whenAcknowledged(seq) { result in
                let here = pthread_equal(pthread_self(), caller) != 0
                events.withLock { $0.append("acknowledged \(seq) \((try? result.get()) == seq && here)") }
            }
        }
        disk.releaseWhen { events.withLock { $0.count } == 3 }
        let before = log.fsyncs
        log.flushRoundHere()
        #expect(
            events.withLock { $0 } == [
                "work during fsync 1", "work during fsync 2", "work during fsync 3",
                "acknowledged 1 true", "acknowledged 2 true", "acknowledged 3 true"
            ])
        #expect(log.fsyncs - before == 1)
        #expect(!disk.gaveUp.withLock { $0 })
    }

    /// Each round runs the work handed over since the last, once, and keeps the emptied buffer for the next
    /// round's: a fresh buffer regrew with every batch.
    @Test func earlyWork_eachRoundRunsItsOwnOnce_andTheBufferIsKept() throws {
        let log = try AppendLog(
            directory: temporaryDirectory(), fileSystem: CountedFsync(), policy: .always, nextSeq: 1, writersCommit: true)
        defer { log.close() }
        log.wakeWriterAtRoundEnds(isRoundThread: { true })
        let ran = Mutex<[String]>([])
        for round in 1...2 {
            for write in 1...3 {
                _ = try log.append(Self.record)
                log.whileSyncing { ran.withLock { $0.append("\(round).\(write)") } }
            }
            log.flushRoundHere()
            #expect(log.condition.withLock { log.earlyWork.isEmpty && log.earlyWork.capacity >= 3 })
        }
        #expect(ran.withLock { $0 } == ["1.1", "1.2", "1.3", "2.1", "2.2", "2.3"])
    }

    /// The fsync fails while the work runs: the work is done, and every record of the batch fails instead of being
    /// acknowledged.
    @Test func earlyWork_aFailedFsyncStillFailsTheBatch() throws {
        let disk = HeldFsync()
        disk.fails.withLock { $0 = true }
        let log = try AppendLog(directory: temporaryDirectory(), fileSystem: disk, policy: .always, nextSeq: 1, writersCommit: true)
        defer { log.close() }
        log.wakeWriterAtRoundEnds(isRoundThread: { true })
        let ran = Mutex(false)
        let outcome = Mutex<Result<UInt64, StorageFailure>?>(nil)
        let seq = try log.append(Self.record)
        log.whileSyncing { ran.withLock { $0 = true } }
        log.whenAcknowledged(seq) { result in outcome.withLock { $0 = result } }
        disk.releaseWhen { ran.withLock { $0 } }
        log.flushRoundHere()
        #expect(ran.withLock { $0 })
        #expect(!disk.gaveUp.withLock { $0 }, "the work did not run while the fsync was out")
        guard case .failure? = outcome.withLock({ $0 }) else {
            Issue.record("a record of a failed fsync was acknowledged")
            return
        }
    }

    /// Without a loop committing under `always` there is no fsync to work beside: the work is not kept (a list
    /// nobody drains would grow with every write), and the caller computes its answer after the acknowledgement.
    @Test(arguments: [(FsyncPolicy.always, false), (.never, true), (.interval, true)])
    func earlyWork_isNotKept_withoutALoopCommittingUnderAlways(policy: FsyncPolicy, writersCommit: Bool) throws {
        let log = try AppendLog(
            directory: temporaryDirectory(), fileSystem: PosixFileSystem(), policy: policy, nextSeq: 1, writersCommit: writersCommit)
        defer { log.close() }
        #expect(!log.runsWorkWhileSyncing)
        let ran = Mutex(false)
        let seq = try log.append(Self.record)
        log.whileSyncing { ran.withLock { $0 = true } }
        try log.waitAcknowledged(seq)
        #expect(!ran.withLock { $0 })
        #expect(log.condition.withLock { log.earlyWork.isEmpty })
    }
}

/// The fsync thread once stopped: a job already asked for is finished, and later fsyncs fall back to the caller.
@Suite struct FsyncThreadTests {
    @Test func stopped_finishesTheJobOut_thenDeclinesNewOnes() throws {
        let disk = HeldFsync()
        let path = temporaryDirectory() + "/file"
        let fd = try disk.openForAppend(path)
        defer { disk.close(fd) }
        let helper = FsyncThread(fileSystem: disk)
        #expect(helper.start(fd: fd, path: path))
        #expect(disk.started.wait(timeout: .now() + 5) == .success)
        helper.stop()
        disk.releaseWhen { true }
        try helper.finish()
        #expect(!helper.start(fd: fd, path: path))
    }

    /// The wake-up is given after the lock is let go, so neither side may miss it: thousands of jobs back to back,
    /// waited for (`start`/`finish`) and handed back (`begin`) in turn, each fsynced once and returned once. A lost
    /// wake-up would hang a job, which the timeouts turn into a failure.
    @Test func jobsBackToBack_eachFsyncedOnce_noWakeUpLost() throws {
        let disk = CountedFsync()
        let path = temporaryDirectory() + "/file"
        let fd = try disk.openForAppend(path)
        defer { disk.close(fd) }
        let helper = FsyncThread(fileSystem: disk)
        defer { helper.stop() }
        let rounds = 3_000
        let handedBack = Atomic<Int>(0)
        let failures = Mutex<[String]>([])
        let done = DispatchSemaphore(value: 0)
        // On a thread of its own, so that a `finish` that never returns fails the test instead of hanging it.
        let driver = Thread {
            let returned = DispatchSemaphore(value: 0)
            for round in 0..<rounds {
                if round % 2 == 0 {
                    guard helper.start(fd: fd, path: path), (try? helper.finish()) != nil else {
                        failures.withLock { $0.append("job \(round) was declined or failed") }
                        break
                    }
                } else {
                    let began = helper.begin(fd: fd, path: path) { result in
                        if case .success = result { handedBack.add(1, ordering: .relaxed) }
                        returned.signal()
                    }
                    guard began, returned.wait(timeout: .now() + 10) == .success else {
                        failures.withLock { $0.append("job \(round) was never handed back") }
                        break
                    }
                }
            }
            done.signal()
        }
        driver.start()
        #expect(done.wait(timeout: .now() + 60) == .success, "a waited-for job never finished")
        #expect(failures.withLock { $0 }.isEmpty)
        #expect(handedBack.load(ordering: .relaxed) == rounds / 2)
        #expect(disk.syncs.load(ordering: .relaxed) == rounds)
    }
}

/// The real file system, except that `syncData` only counts: the hand-offs, not the disk, are under test.
final class CountedFsync: ForwardingFileSystem {
    let inner: FileSystem = PosixFileSystem()
    let syncs = Atomic<Int>(0)

    func syncData(_ fd: Int32, path: String) throws(IOError) { syncs.add(1, ordering: .relaxed) }
}

/// The real file system, except that `syncData` signals `started`, then waits until `release` holds (the test's
/// early work has seen the fsync out) before syncing, or fails when `fails`. It gives up after five seconds.
final class HeldFsync: ForwardingFileSystem {
    let inner: FileSystem = PosixFileSystem()
    let started = DispatchSemaphore(value: 0)
    let release = Mutex<(@Sendable () -> Bool)?>(nil)
    let fails = Mutex(false)
    let gaveUp = Mutex(false)

    func releaseWhen(_ condition: @escaping @Sendable () -> Bool) { release.withLock { $0 = condition } }

    func syncData(_ fd: Int32, path: String) throws(IOError) {
        started.signal()
        let deadline = Date().addingTimeInterval(5)
        while !(release.withLock { $0 }?() ?? true) {
            guard Date() < deadline else {
                gaveUp.withLock { $0 = true }
                break
            }
            usleep(1000)
        }
        if fails.withLock({ $0 }) { throw IOError(call: "fdatasync", path: path, code: EIO) }
        try inner.fsync(fd, path: path)
    }
}
