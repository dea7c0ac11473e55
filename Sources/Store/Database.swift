import Foundation
import Rules
import Synchronization

/// The durable store as the daemon uses it: recovery at open, the in-memory shards, the append log, snapshots
/// every N records (once the log has also grown by a share of the last snapshot) and at close.
public final class Database: Sendable {
    public struct Options: Sendable {
        public var directory: String
        public var fsync: FsyncPolicy
        public var fsyncInterval: Duration
        public var snapshotEvery: Int
        /// An automatic snapshot also waits until the log written since the last snapshot is this many percent of
        /// that snapshot's size (0: records alone decide). A snapshot writes, reads back and checks every user,
        /// so at a fixed count of records its cost per write grows with the state (a donation history of a
        /// thousand instants a user made it a tenth of a write's CPU); this keeps it a bounded share of the work,
        /// as Redis rewrites its append-only file when it has grown by a percentage, and bounds what recovery
        /// replays after the newest snapshot to that share of its size.
        public var snapshotGrowthPercent: Int
        public var history: HistoryPolicy
        /// Per-user caps on new writes (replay applies none).
        public var limits: ContextLimits
        public var shardCount: Int
        public var segmentLimit: Int
        /// Writes that would create a user beyond this many are refused (`StoreError.capacity`); 0: no cap.
        public var maxUsers: Int
        /// After a failed snapshot the next automatic one waits this long (and another `snapshotEvery` records),
        /// doubling with each failure in a row up to `snapshotRetryBackoffLimit`: a full disk is not fixed by
        /// trying again on every write, and every attempt rotates the log.
        public var snapshotRetryBackoff: Duration
        public var snapshotRetryBackoffLimit: Duration
        /// Under `always` too, the threads that write flush and fsync their own records (the log writer thread
        /// only closes and syncs retired segments): for a process with one CPU, where a writer thread would only
        /// take turns with the event loop (`--log-commit loop`).
        public var writersCommit = false
        /// The wall clock snapshots read to leave expired values out (tests give their own).
        public var clock: @Sendable () -> Instant = { Instant(seconds: Date().timeIntervalSince1970) }

        public init(
            directory: String, fsync: FsyncPolicy = .interval, fsyncInterval: Duration = .milliseconds(100),
            snapshotEvery: Int = 100_000, snapshotGrowthPercent: Int = 0, history: HistoryPolicy = HistoryPolicy(),
            limits: ContextLimits = ContextLimits(),
            shardCount: Int = 64, segmentLimit: Int = 64 << 20, maxUsers: Int = 0,
            snapshotRetryBackoff: Duration = .seconds(1), snapshotRetryBackoffLimit: Duration = .seconds(300)
        ) {
            self.directory = directory
            self.fsync = fsync
            self.fsyncInterval = fsyncInterval
            self.snapshotEvery = snapshotEvery
            self.snapshotGrowthPercent = snapshotGrowthPercent
            self.history = history
            self.limits = limits
            self.shardCount = shardCount
            self.segmentLimit = segmentLimit
            self.maxUsers = maxUsers
            self.snapshotRetryBackoff = snapshotRetryBackoff
            self.snapshotRetryBackoffLimit = snapshotRetryBackoffLimit
        }
    }

    public let options: Options
    public let store: UserStore
    public let log: AppendLog
    public let recovery: Recovery.Report
    let fileSystem: FileSystem
    /// `lastSeq`: the newest verified snapshot, the base compaction keeps as the way back when the next snapshot
    /// is verified (0 with no snapshot yet: the log from its first record is the way back).
    private let snapshotState = Mutex(SnapshotState())
    private let failureHandlers = Mutex<
        (snapshot: (@Sendable (SnapshotFailure) -> Void)?, storage: (@Sendable (StorageFailure) -> Void)?)
    >((nil, nil))
    private let snapshotQueue = DispatchQueue(label: "specd.snapshot")
    /// One per shard: acknowledgements released in the order the shard applied the writes.
    private let completions: [OrderedCompletions]
    /// One snapshot at a time, from start to compaction: two interleaved ones could each delete the other's way back.
    private let snapshotLock = NSLock()
    /// Whether the calling thread flushes the log at the end of its round (see `flushLogAtRoundEnds`). Written
    /// once, before any write is served; read on every write, so no lock.
    @exclusivity(unchecked) nonisolated(unsafe) private var flushesLater: (@Sendable () -> Bool)?
    /// Told as snapshots and compactions start and end (`observeActivity`).
    let activityObservers = Mutex<[@Sendable (StoreActivity) -> Void]>([])

    /// Threads for which `isRoundThread` holds promise to call `log.flush()` after each round of requests, so
    /// their writes share one `write` per round instead of one each. Call before serving writes.
    public func flushLogAtRoundEnds(isRoundThread: @escaping @Sendable () -> Bool) {
        flushesLater = isRoundThread
    }

    /// Writes made by threads that run rounds (event loops) reach the log in one `write` per round, as Redis
    /// writes its append-only file before its loop sleeps: a lone request pays no hand-off to another thread, a
    /// busy round hands its batch to the log's writer thread. `addRoundHook` installs the end-of-round call and
    /// says whether the threads have rounds at all; without them, writers flush at once.
    ///
    /// `handOff: false` (a process with one CPU, where a second thread only takes turns with the loop): the loop
    /// writes each round's batch itself, fsyncs it under `always`, and answers its writes without a hand-off. Its
    /// hook asks the round to gather what became ready while records wait (the second argument of `addRoundHook`),
    /// so that more of them share the write and the fsync.
    ///
    /// `roundRunner` (with `handOff: false`, under `always`, and one loop): the runner of the calling thread's
    /// loop, `nil` off a loop. The loop then leaves each round's fsync out and serves its sockets meanwhile; the
    /// batch is acknowledged by a task on that loop once the disk returns (`AppendLog.flushRoundHere`), unless
    /// `otherWorkReady` says the loop has nothing else to do: it then fsyncs the batch itself.
    public func batchLogWritesPerRound(
        addRoundHook: (@escaping @Sendable () -> Void, (@Sendable () -> Bool)?) -> Bool, isRoundThread: @escaping @Sendable () -> Bool,
        handOff: Bool = true, loops: Int = 1, roundRunner: (@Sendable () -> AppendLog.RoundRunner?)? = nil,
        otherWorkReady: @escaping @Sendable () -> Bool = { true }
    ) {
        let log = log
        let hook: @Sendable () -> Void
        var gatherWhile: (@Sendable () -> Bool)?
        if handOff {
            hook = { log.flush(handingOffAbove: AppendLog.handOffAbove) }
        } else {
            hook = { log.flushRoundHere() }
            gatherWhile = { log.roundWouldCommit }
        }
        if addRoundHook(hook, gatherWhile) {
            flushesLater = isRoundThread
            log.wakeWriterAtRoundEnds(isRoundThread: isRoundThread)
            if !handOff, let roundRunner { log.pipelineRoundFsyncs(loops: loops, runner: roundRunner, otherWorkReady: otherWorkReady) }
        }
    }

    /// Recovers and opens. Throws `.corrupt` (exit 2) when the data cannot be trusted.
    public init(options: Options, fileSystem: FileSystem = PosixFileSystem()) throws(Recovery.Failure) {
        self.options = options
        self.fileSystem = fileSystem
        do {
            try fileSystem.createDirectory(options.directory)
        } catch {
            throw .unreadable(error)
        }
        let shardCount = max(1, options.shardCount)
        var users = [UserTable](repeating: UserTable(), count: shardCount)
        // The snapshot's users arrive first, then the records after it, applied as they are read.
        var replay = ReplayBuffer(shardCount: shardCount, policy: options.history)
        let report = try Recovery.run(
            directory: options.directory, fileSystem: fileSystem, repair: true, shardCount: shardCount,
            apply: { mutation in replay.add(mutation, into: &users) }, loadSnapshot: { users = $0 })
        replay.apply(to: &users)
        recovery = report
        do {
            log = try AppendLog(
                directory: options.directory, fileSystem: fileSystem, policy: options.fsync,
                nextSeq: report.lastSeq + 1, interval: options.fsyncInterval, segmentLimit: options.segmentLimit,
                appendTo: report.lastSegment, writersCommit: options.writersCommit)
        } catch {
            throw .unreadable(error)
        }
        completions = (0..<shardCount).map { _ in OrderedCompletions() }
        store = UserStore(shardTables: users, policy: options.history, limits: options.limits, log: log, maxUsers: options.maxUsers)
        users = []
        // Replay ran on several threads, each allocating from its own malloc arena; what they and the load freed
        // (read buffers, decoded mutations) stays in those arenas unless handed back. Returned here, once, so a
        // recovered daemon holds what its users take and not the peak of loading them.
        HeapRelease.returnFreePages()
        let recoveredBytes = report.snapshotSeq == 0 ? 0 : fileSystem.size(SnapshotFile.path(in: options.directory, seq: report.snapshotSeq)) ?? 0
        snapshotState.withLock {
            $0.lastSeq = report.snapshotSeq
            $0.lastBytes = recoveredBytes
            // The log replayed after the snapshot counts as written since it: else a daemon restarted (or crashing)
            // before each snapshot fell due would start the count again every time, and never take one.
            $0.logBytesAtLast = -report.replayedBytes
        }
    }

    /// Applies a mutation and calls `completion` once it is acknowledged under the fsync policy.
    /// `early` runs while an fsync is out when the log `runsWorkWhileSyncing` (see `ContextStore.write`).
    public func write(
        _ mutation: Mutation, followUp: (UserContext?, UserContext?) -> [Action] = { _, _ in [] },
        early: (@Sendable (UserStore.Applied) -> Void)? = nil,
        completion: @escaping @Sendable (Result<UserStore.Applied, StoreError>) -> Void
    ) {
        let applied: UserStore.Applied
        let order = completions[UserStore.shardIndex(of: mutation.user, shardCount: completions.count)]
        do {
            applied = try store.apply(mutation, followUp: followUp, sequenced: order.register)
        } catch {
            completion(.failure(error))
            return
        }
        // Outside the shard lock: flushing may complete other writers' requests on this thread. A thread that
        // flushes at the end of its round anyway (an event loop) leaves it to then: one write for the whole round.
        let pending = PendingWrite(applied: applied, order: order, completion: completion, early: early)
        if early != nil { log.whileSyncing { pending.runEarly() } }
        if !(flushesLater?() ?? false) { log.flush(handingOffAbove: AppendLog.handOffAbove) }
        log.whenAcknowledged(applied.seq) { pending.acknowledged($0) }
        maybeSnapshot(after: applied.seq)
    }

    /// The blocking form of `write`, for tests, benchmarks and tools.
    public func writeAndWait(_ mutation: Mutation) throws(StoreError) -> UserStore.Applied {
        let order = completions[UserStore.shardIndex(of: mutation.user, shardCount: completions.count)]
        let applied = try store.apply(mutation, sequenced: order.register)
        // Its place in the shard's order is released at once: the caller already has its answer.
        defer { order.complete(applied.seq, { _ in }, .success(applied)) }
        do {
            try log.waitAcknowledged(applied.seq)
        } catch {
            throw .storageFailed(error)
        }
        maybeSnapshot(after: applied.seq)
        return applied
    }

    private func maybeSnapshot(after seq: UInt64) {
        let due = snapshotState.withLock { state -> Bool in
            guard !state.running, seq >= state.lastSeq + UInt64(options.snapshotEvery) else { return false }
            let written = log.bytesWritten - state.logBytesAtLast
            guard Self.logHasGrown(written: written, snapshotBytes: state.lastBytes, percent: options.snapshotGrowthPercent) else { return false }
            if let retry = state.retry {
                guard seq >= retry.afterSeq, ContinuousClock.now >= retry.at else { return false }
            }
            state.running = true
            return true
        }
        guard due else { return }
        // A failure is counted, kept and reported by `takeSnapshot`; nothing more to do with it here.
        snapshotQueue.async { [self] in _ = try? takeSnapshot() }
    }

    /// Blocks until a snapshot started in the background after a write has finished (tests, tools).
    public func waitForSnapshot() {
        snapshotQueue.sync {}
    }

    /// Writes a snapshot of the current state, reads it back and checks it, and only then compacts: the previous
    /// verified snapshot and the segments after it stay as a second way back, everything older goes.
    @discardableResult
    public func takeSnapshot() throws(IOError) -> UInt64 {
        snapshotLock.lock()
        defer { snapshotLock.unlock() }
        let previous = snapshotState.withLock { state -> UInt64 in
            state.running = true
            return state.lastSeq
        }
        defer { snapshotState.withLock { $0.running = false } }
        store.settleDeferred()
        let (seq, shards, rotation) = store.capture(rotating: true)
        let logBytes = log.bytesWritten
        // Nothing was ever written: no state, no log to compact.
        guard seq > 0 else { return seq }
        report(StoreActivity(kind: .snapshot, phase: .started, seq: seq))
        do throws(IOError) {
            if seq == previous {
                // Nothing new since the last verified snapshot: it holds this very state. Rewriting it would only
                // risk the good copy, so it is read back and checked again instead (and rewritten only when that
                // fails). It still counts as a snapshot taken: the compaction below then removes the way back
                // older than it, so an erase followed by two snapshots leaves the disk even when no write came
                // between them.
                try verifyOrRewrite(shards, seq: seq)
            } else {
                try writeVerified(shards, seq: seq)
            }
        } catch {
            snapshotFailed(error, at: seq)
            report(StoreActivity(kind: .snapshot, phase: .failed(error.description), seq: seq))
            throw error
        }
        let snapshotBytes = fileSystem.size(SnapshotFile.path(in: options.directory, seq: seq)) ?? 0
        snapshotState.withLock {
            $0.lastSeq = seq
            $0.lastBytes = snapshotBytes
            $0.logBytesAtLast = logBytes
            $0.lastAt = .now
            $0.retry = nil
            $0.lastError = nil
        }
        report(StoreActivity(kind: .snapshot, phase: .finished, seq: seq))
        // Compaction may only delete segments once the records after `seq` go to a new one.
        report(StoreActivity(kind: .compaction, phase: .started, seq: seq))
        if let rotation { log.waitForRotation(rotation) }
        do throws(IOError) {
            try compact(keeping: seq, previous: previous)
        } catch {
            report(StoreActivity(kind: .compaction, phase: .failed(error.description), seq: seq))
            throw error
        }
        report(StoreActivity(kind: .compaction, phase: .finished, seq: seq))
        return seq
    }

    /// Writes the snapshot and reads it back; one that fails the check is removed, so recovery never prefers it
    /// over the chain it failed to replace.
    private func writeVerified(_ shards: [UserTable], seq: UInt64) throws(IOError) {
        let written = try SnapshotFile.write(
            shards, seq: seq, directory: options.directory, fileSystem: fileSystem, now: options.clock())
        do throws(IOError) {
            try SnapshotFile.verify(written.path, seq: seq, users: written.users, fileSystem: fileSystem)
        } catch {
            try? fileSystem.remove(written.path)
            try? fileSystem.fsyncDirectory(options.directory)
            throw error
        }
    }

    /// The snapshot already on disk at `seq` is checked against the captured state; only a missing or damaged one
    /// is written again.
    private func verifyOrRewrite(_ shards: [UserTable], seq: UInt64) throws(IOError) {
        let path = SnapshotFile.path(in: options.directory, seq: seq)
        let users = shards.reduce(0) { $0 + $1.count }
        if (try? SnapshotFile.verify(path, seq: seq, users: users, fileSystem: fileSystem)) != nil { return }
        try writeVerified(shards, seq: seq)
    }

    /// Keeps the snapshot at `seq` and the previous one at `previous` with every segment holding a record after
    /// `previous`; removes older snapshots (and damaged ones recovery went back past) and older segments. An erased
    /// user's records are thus gone from disk once two snapshots have been taken after the erase: the first
    /// becomes the second's `previous` — even when the second found nothing new (`seq == previous`), and then it
    /// is the only way back left.
    private func compact(keeping seq: UInt64, previous: UInt64) throws(IOError) {
        let found: (snapshots: [(UInt64, String)], segments: [(UInt64, String)], temporary: [String])
        do {
            found = try Recovery.files(in: options.directory, fileSystem: fileSystem)
        } catch {
            return
        }
        for (snapshotSeq, path) in found.snapshots where snapshotSeq < seq && snapshotSeq != previous { try fileSystem.remove(path) }
        let segments = found.segments
        for (index, segment) in segments.enumerated() where index + 1 < segments.count {
            // A segment ends where the next begins: all its records are in the previous snapshot.
            if segments[index + 1].0 <= previous + 1 { try fileSystem.remove(segment.1) }
        }
        try fileSystem.fsyncDirectory(options.directory)
    }

    /// Counts the failure, sets when the next automatic attempt may run, and tells whoever asked to hear of it.
    private func snapshotFailed(_ error: IOError, at seq: UInt64) {
        let failures = snapshotState.withLock { state in
            state.failures += 1
            state.lastError = error
            let first = options.snapshotRetryBackoff
            let backoff = state.retry.map { min($0.backoff * 2, options.snapshotRetryBackoffLimit) } ?? first
            state.retry = (afterSeq: seq + UInt64(options.snapshotEvery), at: .now + backoff, backoff: backoff)
            return state.failures
        }
        failureHandlers.withLock { $0.snapshot }?(SnapshotFailure(error, failuresSinceStart: failures))
    }

    public var lastSnapshotSeq: UInt64 { snapshotState.withLock { $0.lastSeq } }
    public var lastSnapshotAt: ContinuousClock.Instant? { snapshotState.withLock { $0.lastAt } }
    /// Snapshots that could not be written or verified since start.
    public var snapshotFailures: Int { snapshotState.withLock { $0.failures } }
    /// Why the last snapshot failed; nil once one succeeds again.
    public var lastSnapshotError: IOError? { snapshotState.withLock { $0.lastError } }

    /// Called (on the snapshot's thread) each time a snapshot fails. The store has no logger: the daemon logs it.
    /// The report carries the failure count, so the handler need not reach back to the database: a weak reference
    /// to it gave the database the runtime's side table, through which every retain and release of it then went
    /// (one of each a flag read).
    public var onSnapshotFailure: (@Sendable (SnapshotFailure) -> Void)? {
        get { failureHandlers.withLock { $0.snapshot } }
        set { failureHandlers.withLock { $0.snapshot = newValue } }
    }

    /// Called once, on the thread that found it, when a log write or fsync fails and writes stop being accepted.
    public var onStorageFailure: (@Sendable (StorageFailure) -> Void)? {
        get { failureHandlers.withLock { $0.storage } }
        set {
            failureHandlers.withLock { $0.storage = newValue }
            log.onFailure = newValue
        }
    }

    /// Clean shutdown: snapshot, then flush and fsync the log.
    public func close() throws(IOError) {
        defer { log.close() }
        if log.failed == nil { try takeSnapshot() }
    }

    /// Stops the log without a snapshot: at a start that failed, or after a log failure (memory may then be ahead
    /// of the disk, so no snapshot of it may be written).
    public func closeWithoutSnapshot() {
        log.close()
    }
}

extension Database {
    /// The payload size of a mutation's log record (tests use it to find record boundaries).
    public static func encodedLength(of mutation: Mutation) -> Int { MutationCodec.encode(mutation).count }
}
