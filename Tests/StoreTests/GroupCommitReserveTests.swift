import Testing

@testable import Store

/// Under the policies that sync, writes go into zeros the log reserved ahead: the plan reserves a chunk before the
/// write that would pass the reserved end, never otherwise, and stops asking once the file system declines.
@Suite struct GroupCommitReserveTests {
    static let chunk = Commit.reserveChunk

    @Test(arguments: [FsyncPolicy.always, .interval])
    func firstWrite_reservesAChunk_andWritesAfterItFitWithoutAsking(policy: FsyncPolicy) throws {
        var commit = makeCommit(policy, segmentLimit: 64 << 20, reserving: true)
        try appendRecords(&commit, 3)
        let size = 3 * recordSize(8)
        let fsync = policy == .always ? ["fsync 3"] : []
        #expect(runFlush(&commit).journal == ["reserve 3 0+\(Self.chunk)", "write 3 \(size)"] + fsync)
        #expect(commit.segment.reserved == Self.chunk)
        try appendRecords(&commit, 2)
        let (journal, settled) = runFlush(&commit)
        #expect(journal == ["write 3 \(2 * recordSize(8))"] + fsync)
        #expect(settled.successes == ["seq 4", "seq 5"])
    }

    @Test func aWritePastTheReservedEnd_reservesFromThere_atLeastWhatItNeeds() throws {
        var commit = makeCommit(.always, segmentLimit: 64 << 20, reserving: true)
        try appendRecords(&commit, 1, payload: Self.chunk - 100)
        _ = runFlush(&commit)
        #expect(commit.segment.reserved == Self.chunk)
        let written = commit.segment.bytes
        // A batch larger than a chunk: the reservation covers all of it.
        try appendRecords(&commit, 1, payload: 3 * Self.chunk)
        let needed = written + recordSize(3 * Self.chunk) - Self.chunk
        #expect(runFlush(&commit).journal == ["reserve 3 \(Self.chunk)+\(needed)", "write 3 \(recordSize(3 * Self.chunk))", "fsync 3"])
        #expect(commit.segment.reserved == Self.chunk + needed)
        #expect(commit.segment.reserved == commit.segment.bytes)
    }

    @Test func aFileSystemThatDeclines_isNeverAskedAgain_andTheWriteGoesOn() throws {
        var commit = makeCommit(.always, reserving: true)
        try appendRecords(&commit, 1)
        let (journal, settled) = runFlush(&commit, script: [.reserved(false)])
        #expect(journal == ["reserve 3 0+\(Self.chunk)", "write 3 \(recordSize(8))", "fsync 3"])
        #expect(settled.successes == ["seq 1"])
        #expect(!commit.reservesSpace)
        // Zeros may have been written partway: the cut at retirement covers them.
        #expect(commit.segment.reserved == Self.chunk)
        try appendRecords(&commit, 1)
        #expect(runFlush(&commit).journal == ["write 3 \(recordSize(8))", "fsync 3"])
    }

    @Test func underNever_nothingIsReserved() throws {
        var commit = makeCommit(.never, reserving: true)
        try appendRecords(&commit, 2)
        #expect(runFlush(&commit).journal == ["write 3 \(2 * recordSize(8))"])
    }

    @Test func aRotation_cutsTheOldSegmentToItsRecords_andTheNewOneReservesFromZero() throws {
        var commit = makeCommit(.always, segmentLimit: 2 * recordSize(8), reserving: true)
        try appendRecords(&commit, 2)
        let (journal, _) = runFlush(&commit)
        #expect(journal == ["reserve 3 0+\(Self.chunk)", "write 3 \(2 * recordSize(8))", "fsync 3", "open segment 3", "sync directory"])
        #expect(commit.retiring == [.init(fd: 3, path: scriptedSegmentPath(1), dirty: false, truncateTo: 2 * recordSize(8))])
        #expect(commit.takeChores(now: clockStart, stopping: false).closes.map(\.truncateTo) == [2 * recordSize(8)])
        try appendRecords(&commit, 1)
        #expect(runFlush(&commit).journal == ["reserve 10 0+\(Self.chunk)", "write 10 \(recordSize(8))", "fsync 10"])
    }
}
