/// The writer thread's side: when it sleeps, what a round of it does, and the stop. Under `always` it is the
/// flusher; under `interval` and `never` it fsyncs on the interval, makes rotations nobody flushed, writes batches
/// handed off to it, closes retired segments, and writes what is left at the stop.
extension GroupCommit {
    /// How long the writer thread may sleep, given the instant now.
    enum Sleep: Equatable {
        case awake
        case untilWoken
        case until(ContinuousClock.Instant)
    }

    func sleep(now: ContinuousClock.Instant) -> Sleep {
        let work = stopping || !retiring.isEmpty || cut != nil || handOffRequested || (!inline && !queued.isEmpty)
        if work { return .awake }
        guard policy == .interval, unsyncedSeq > 0, failure == nil else { return .untilWoken }
        let due = lastSync + interval
        return now >= due ? .awake : .until(due)
    }

    /// What the writer does once awake: `drain` takes the file lock and flushes (the stop, a cut, a hand-off, or
    /// anything queued under `always`), then it does the chores.
    struct Round: Equatable {
        let stop: Bool
        let drain: Bool
    }

    mutating func beginRound() -> Round {
        let round = Round(stop: stopping, drain: stopping || cut != nil || handOffRequested || !inline)
        handOffRequested = false
        return round
    }

    /// After the round's flush: retired segments to fsync (when `sync`) and close, and the current segment to
    /// fsync when the interval is due or the log stops. Fsyncs run outside the lock, so appenders go on writing
    /// while the disk catches up.
    struct Chores: Equatable {
        struct Close: Equatable {
            let fd: Int32
            let path: String
            let sync: Bool
            /// Cut the reserved zeros off first (readers pass over them, but a finished segment holds its records).
            var truncateTo: Int? = nil
        }

        struct Sync: Equatable {
            let fd: Int32
            let path: String
            /// Report it to `synced(_:at:)` once done.
            let seq: UInt64
        }

        var closes: [Close]
        var sync: Sync?
    }

    mutating func takeChores(now: ContinuousClock.Instant, stopping stop: Bool) -> Chores {
        let healthy = failure == nil
        let closes = retiring.map { Chores.Close(fd: $0.fd, path: $0.path, sync: $0.dirty && healthy, truncateTo: $0.truncateTo) }
        retiring.removeAll()
        let due = stop || policy == .interval && now >= lastSync + interval
        // Only the writer thread closes descriptors, so `segment.fd` stays valid even if a flusher rotates
        // while this fsync runs.
        let sync = healthy && unsyncedSeq > 0 && due ? Chores.Sync(fd: segment.fd, path: segment.path, seq: unsyncedSeq) : nil
        return Chores(closes: closes, sync: sync)
    }

    /// The chores' fsync of the current segment returned: what it covered is clean, unless more came since.
    mutating func synced(_ seq: UInt64, at now: ContinuousClock.Instant) {
        if unsyncedSeq == seq { unsyncedSeq = 0 }
        lastSync = now
    }

    /// `close` asked: appends are refused from now on; the writer's next round drains and stops.
    mutating func stop() {
        stopping = true
    }

    /// The writer's last act: the descriptors still open, for it to close. Waiters of `waitForRotation` and
    /// `close` may return.
    mutating func finishStopping() -> [Int32] {
        var open = retiring.map(\.fd)
        if segment.fd >= 0 { open.append(segment.fd) }
        segment.fd = -1
        retiring.removeAll()
        stopped = true
        return open
    }
}
