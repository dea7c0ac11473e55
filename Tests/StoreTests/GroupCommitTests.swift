import Testing

@testable import Store

#if canImport(Glibc)
import Glibc
#endif

/// The append log's group commit as a value: scripted write and fsync results, no thread, file or clock.
@Suite struct GroupCommitTests {
    @Test(arguments: [FsyncPolicy.always, .interval, .never])
    func flush_writesEverythingQueuedInOneWrite_andAcknowledgesIt(policy: FsyncPolicy) throws {
        var commit = makeCommit(policy)
        try appendRecords(&commit, 3)
        let (journal, settled) = runFlush(&commit)
        let write = "write 3 \(3 * recordSize(8))"
        #expect(journal == (policy == .always ? [write, "fsync 3"] : [write]))
        #expect(settled.successes == ["seq 1", "seq 2", "seq 3"])
        #expect(commit.acknowledgedSeq == 3)
        #expect(commit.segment.bytes == 3 * recordSize(8))
        #expect(commit.register(2, "late") == .success(2))
    }

    @Test func shortWrite_asksAgainForTheRest_andAcknowledgesOnlyOnceAllIsWritten() throws {
        var commit = makeCommit(.always)
        try appendRecords(&commit, 2)
        let total = 2 * recordSize(8)
        guard case .perform(.write(_, _, let first), _) = commit.beginFlush() else {
            Issue.record("no write")
            return
        }
        #expect(first.count == total)
        guard case .perform(.write(_, _, let rest), _) = commit.advance(.wrote(5)) else {
            Issue.record("no second write")
            return
        }
        #expect(Array(rest) == Array(first.dropFirst(5)))
        #expect(commit.acknowledgedSeq == 0)
        guard case .perform(.fsync(3, _), _) = commit.advance(.wrote(total - 5)) else {
            Issue.record("no fsync")
            return
        }
        guard case .settled(let settled) = commit.advance(.done) else {
            Issue.record("not settled")
            return
        }
        #expect(settled.successes == ["seq 1", "seq 2"])
        #expect(commit.segment.bytes == total)
    }

    @Test func writeTakingNothing_failsWithEIO() throws {
        var commit = makeCommit(.interval)
        try appendRecords(&commit, 1)
        let (_, settled) = runFlush(&commit, script: [.wrote(0)])
        #expect(settled.failures == ["seq 1"])
        #expect(commit.failure?.underlying == IOError(call: "write", path: scriptedSegmentPath(1), code: EIO))
    }

    static let eio = IOError(call: "write", path: "segment", code: EIO)
    static let fsyncEIO = IOError(call: "fsync", path: "segment", code: EIO)

    /// EIO on the write (any policy) or on the fsync (`always`): nothing in the batch is acknowledged, everyone
    /// waiting hears of it, and the failure is reported once.
    @Test(arguments: [
        (FsyncPolicy.always, [Commit.Response.failed(GroupCommitTests.eio)]), (.interval, [.failed(GroupCommitTests.eio)]),
        (.never, [.failed(GroupCommitTests.eio)]),
        (.always, [.wrote(2 * recordSize(8)), .failed(GroupCommitTests.fsyncEIO)])
    ])
    func failedWriteOrFsync_acknowledgesNothingInTheBatch(policy: FsyncPolicy, script: [Commit.Response]) throws {
        var commit = makeCommit(policy)
        try appendRecords(&commit, 2)
        let (_, settled) = runFlush(&commit, script: script)
        #expect(settled.failures == ["seq 1", "seq 2"])
        #expect(settled.failure != nil)
        #expect(settled.wake)
        #expect(commit.acknowledgedSeq == 0)
        #expect(commit.fail(StorageFailure(Self.eio)).failure == nil, "reported a second time")
    }

    @Test func afterAFailure_everyLaterAppendIsRefused_andNothingMoreIsWritten() throws {
        var commit = makeCommit(.interval)
        try appendRecords(&commit, 1)
        _ = runFlush(&commit)
        try appendRecords(&commit, 1)
        let (_, failed) = runFlush(&commit, script: [.failed(Self.eio)])
        #expect(failed.failures == ["seq 2"])
        for _ in 0..<3 {
            #expect(throws: StorageFailure(Self.eio)) { _ = try commit.append([1]) }
        }
        #expect(commit.register(1, "written before") == .success(1))
        #expect(commit.register(2, "lost") == .failure(StorageFailure(Self.eio)))
        commit.requestRotation()
        #expect(runFlush(&commit).journal.isEmpty)
        #expect(commit.rotationSettled(1))
        #expect(!commit.hasUnflushed)
    }

    /// The writer thread's fsync may fail while a caller's batch is in its write: that batch is dropped, not
    /// acknowledged when its write returns.
    @Test func failureWhileABatchIsInFlight_dropsTheBatch() throws {
        var commit = makeCommit(.interval)
        try appendRecords(&commit, 2)
        guard case .perform(.write, _) = commit.beginFlush() else {
            Issue.record("no write")
            return
        }
        _ = commit.fail(StorageFailure(Self.fsyncEIO))
        guard case .settled(let settled) = commit.advance(.wrote(2 * recordSize(8))) else {
            Issue.record("not settled")
            return
        }
        #expect(settled.completions.isEmpty)
        #expect(commit.acknowledgedSeq == 0)
        #expect(commit.register(1, "after") == .failure(StorageFailure(Self.fsyncEIO)))
    }

    @Test func waitersRegisteredOutOfOrder_areToldInSeqOrder_andOnlyUpToTheBatch() throws {
        var commit = makeCommit(.never)
        let seqs = try (0..<4).map { _ in try commit.append([1]) }
        for seq in [seqs[2], seqs[0], seqs[1]] { #expect(commit.register(seq, "seq \(seq)") == nil) }
        let (_, settled) = runFlush(&commit)
        #expect(settled.successes == ["seq 1", "seq 2", "seq 3"])
        #expect(commit.register(seqs[3], "seq 4") == .success(4))
        let appended = try commit.append([1])
        #expect(commit.register(appended, "seq 5") == nil)
        #expect(commit.waiters.map(\.waiter) == ["seq 5"])
    }

    /// An event loop's round-end flush: a small batch is written in place, a larger one left to the writer
    /// thread, woken once however many callers leave it.
    @Test func handOff_abovetheLimit_leavesTheBatchToTheWriter_wakingItOnce() throws {
        var commit = makeCommit(.interval)
        try appendRecords(&commit, 4)
        #expect(commit.handOff(above: 4) == .flushHere)
        try appendRecords(&commit, 1)
        #expect(commit.handOff(above: 4) == .leftToWriter(wake: true))
        #expect(commit.handOff(above: 4) == .leftToWriter(wake: false))
        #expect(commit.sleep(now: clockStart) == .awake)
        #expect(commit.beginRound() == .init(stop: false, drain: true))
        #expect(runFlush(&commit).settled.successes.count == 5)
        #expect(commit.sleep(now: clockStart) != .awake)
    }

    @Test(arguments: [FsyncPolicy.always, .interval])
    func queuedRecords_wakeTheWriterOnlyUnderAlways(policy: FsyncPolicy) throws {
        var commit = makeCommit(policy)
        try appendRecords(&commit, 1)
        #expect((commit.sleep(now: clockStart) == .awake) == (policy == .always))
        #expect(commit.beginRound().drain == (policy == .always))
    }

    /// Each batch's records leave `queued` by a swap with the buffer the batch before was written from, emptied:
    /// emptied in place while its flight held the bytes, `queued` was allocated anew every batch.
    @Test func aBatchAfterTheFirst_queuesIntoTheBufferTheLastBatchWasWrittenFrom() throws {
        var commit = makeCommit(.always)
        func firstBatchBytes() -> UnsafeRawPointer? {
            guard case .perform(.write(_, _, let bytes), _) = commit.beginFlush() else { return nil }
            return bytes.withUnsafeBytes { $0.baseAddress }
        }
        try appendRecords(&commit, 3)
        let written = try #require(firstBatchBytes())
        var step = commit.advance(.wrote(3 * recordSize(8)))
        while case .perform = step { step = commit.advance(.done) }
        // Kept alive by the commit from here on, so no other buffer can be given its address meanwhile.
        #expect(commit.spareBytes.withUnsafeBytes { $0.baseAddress } == written)
        try appendRecords(&commit, 2)
        let (journal, settled) = runFlush(&commit)
        #expect(journal == ["write 3 \(2 * recordSize(8))", "fsync 3"])
        #expect(settled.successes == ["seq 4", "seq 5"])
        #expect(commit.queued.isEmpty)
        #expect(commit.queued.withUnsafeBytes { $0.baseAddress } == written)
    }
}
