import Testing

@testable import Store

/// Rotation, the interval fsync at scripted instants, and the stop, on the group-commit value.
@Suite struct GroupCommitRotationTests {
    /// A snapshot's cut lands between records of one batch: those before it end the old segment (fsynced first
    /// under `always`, left dirty for the writer thread otherwise), the rest start the new one.
    @Test(arguments: [FsyncPolicy.always, .interval])
    func cutInTheMiddleOfABatch_splitsItAcrossSegments(policy: FsyncPolicy) throws {
        var commit = makeCommit(policy)
        try appendRecords(&commit, 2)
        let ticket = commit.requestRotation()
        try appendRecords(&commit, 3)
        #expect(!commit.rotationSettled(ticket))
        let (journal, settled) = runFlush(&commit)
        let before = ["write 3 \(2 * recordSize(8))"] + (policy == .always ? ["fsync 3"] : [])
        let after = ["open segment 3", "sync directory", "write 10 \(3 * recordSize(8))"] + (policy == .always ? ["fsync 10"] : [])
        #expect(journal == before + after)
        #expect(settled.successes.count == 5)
        #expect(commit.rotationSettled(ticket))
        #expect(commit.segment == .init(fd: 10, path: scriptedSegmentPath(3), bytes: 3 * recordSize(8)))
        #expect(commit.retiring == [.init(fd: 3, path: scriptedSegmentPath(1), dirty: policy != .always)])
    }

    @Test func secondRotationRequest_beforeTheCutIsMade_joinsIt() throws {
        var commit = makeCommit(.interval)
        try appendRecords(&commit, 1)
        let first = commit.requestRotation()
        try appendRecords(&commit, 1)
        let second = commit.requestRotation()
        let (journal, _) = runFlush(&commit)
        #expect(journal == ["write 3 \(recordSize(8))", "open segment 2", "sync directory", "write 10 \(recordSize(8))"])
        #expect(commit.rotationSettled(first) && commit.rotationSettled(second))
    }

    /// A cut with nothing queued before it: the old segment gets no write, and is dirty only if a record in it
    /// was never fsynced.
    @Test(arguments: [false, true])
    func cutWithNothingQueued_retiresTheSegmentDirtyOnlyIfUnsynced(synced: Bool) throws {
        var commit = makeCommit(.interval)
        try appendRecords(&commit, 1)
        _ = runFlush(&commit)
        if synced { commit.synced(1, at: clockStart + .milliseconds(5)) }
        commit.requestRotation()
        let (journal, _) = runFlush(&commit)
        #expect(journal == ["open segment 2", "sync directory"])
        #expect(commit.retiring.map(\.dirty) == [!synced])
    }

    @Test func fullSegment_rotatesAfterTheBatch_toTheNextSeq() throws {
        var commit = makeCommit(.always, segmentLimit: 2 * recordSize(8))
        try appendRecords(&commit, 2)
        let (journal, settled) = runFlush(&commit)
        #expect(journal == ["write 3 \(2 * recordSize(8))", "fsync 3", "open segment 3", "sync directory"])
        #expect(settled.successes.count == 2)
        #expect(commit.segment.path == scriptedSegmentPath(3))
        #expect(commit.retiring == [.init(fd: 3, path: scriptedSegmentPath(1), dirty: false)])
    }

    @Test func failedOpenOfTheNextSegment_failsTheBatch() throws {
        var commit = makeCommit(.interval)
        try appendRecords(&commit, 1)
        commit.requestRotation()
        try appendRecords(&commit, 1)
        let error = IOError(call: "open", path: scriptedSegmentPath(2), code: 28)
        let (_, settled) = runFlush(&commit, script: [.wrote(recordSize(8)), .failed(error)])
        #expect(settled.failures == ["seq 1", "seq 2"])
        #expect(commit.segment.fd == -1)
        #expect(commit.finishStopping() == [3])
    }

    /// Under `interval` the writer sleeps while clean, wakes at `lastSync + interval` once a record is written,
    /// and a record written while that fsync ran keeps the segment dirty.
    @Test func intervalFsync_isDueAtTheScriptedInstant() throws {
        var commit = makeCommit(.interval)
        #expect(commit.sleep(now: clockStart) == .untilWoken)
        try appendRecords(&commit, 1)
        #expect(runFlush(&commit).settled.wake, "the first dirty record wakes the writer")
        let due = clockStart + .milliseconds(100)
        #expect(commit.sleep(now: clockStart + .milliseconds(40)) == .until(due))
        #expect(commit.takeChores(now: clockStart + .milliseconds(40), stopping: false).sync == nil)
        #expect(commit.sleep(now: due) == .awake)
        let chores = commit.takeChores(now: due, stopping: false)
        #expect(chores.sync == .init(fd: 3, path: scriptedSegmentPath(1), seq: 1))
        try appendRecords(&commit, 1)
        #expect(!runFlush(&commit).settled.wake, "already dirty: the writer is awake")
        commit.synced(1, at: due)
        #expect(commit.unsyncedSeq == 2)
        #expect(commit.sleep(now: due + .milliseconds(1)) == .until(due + .milliseconds(100)))
        commit.synced(2, at: due + .milliseconds(100))
        #expect(commit.sleep(now: due + .milliseconds(100)) == .untilWoken)
    }

    @Test func never_syncsOnlyAtTheStop() throws {
        var commit = makeCommit(.never)
        try appendRecords(&commit, 1)
        _ = runFlush(&commit)
        #expect(commit.sleep(now: clockStart + .seconds(60)) == .untilWoken)
        #expect(commit.takeChores(now: clockStart + .seconds(60), stopping: false).sync == nil)
        #expect(commit.takeChores(now: clockStart, stopping: true).sync?.seq == 1)
    }

    /// `close`: appends are refused, the writer's last round writes the queue and the pending cut, fsyncs what is
    /// dirty, closes every descriptor, and whoever waits may return.
    @Test func stop_drainsEverything_andClosesEveryDescriptor() throws {
        var commit = makeCommit(.interval)
        try appendRecords(&commit, 2)
        let ticket = commit.requestRotation()
        try appendRecords(&commit, 1)
        commit.stop()
        #expect(throws: StorageFailure.self) { _ = try commit.append([1]) }
        #expect(commit.sleep(now: clockStart) == .awake)
        #expect(commit.beginRound() == .init(stop: true, drain: true))
        let (_, settled) = runFlush(&commit)
        #expect(settled.successes == ["seq 1", "seq 2", "seq 3"])
        let chores = commit.takeChores(now: clockStart, stopping: true)
        #expect(chores.closes == [.init(fd: 3, path: scriptedSegmentPath(1), sync: true)])
        #expect(chores.sync == .init(fd: 10, path: scriptedSegmentPath(3), seq: 3))
        #expect(commit.finishStopping() == [10])
        #expect(commit.stopped && commit.rotationSettled(ticket + 1))
    }
}
