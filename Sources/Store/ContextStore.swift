import Rules

/// The store as the engine and the API see it: read a user's context, write through the log, ask how it is.
/// Nobody outside Store reaches into shards, the log or snapshots; the composition root alone opens and closes
/// the `Database` behind it.
public protocol ContextStore: AnyObject, Sendable {
    /// The user's context now; `nil` for a user never written (or erased).
    func context(of user: String) -> UserContext?
    /// A count that changes whenever the user's context may have (it counts the writes to a part of the store
    /// holding other users too); `nil` when the store keeps none. A context read after the count was read has
    /// every write the count includes, and a write is counted before it is acknowledged: a reader that kept what
    /// it computed from such a context (the answer cache), and later reads the same count, knows no write to the
    /// user was acknowledged since, so what it kept still holds without reading the context again. (Two readers of
    /// one count may still find two contexts: a write not yet counted can be under way.)
    func contextChanges(of user: String) -> UInt64?
    /// The per-user caps new writes are held to; inline contexts (OFREP, `/v1/evaluate`) are held to them too.
    var limits: ContextLimits { get }
    /// Applies a mutation (then `followUp`'s actions, in the same logged step) and calls `completion` once the
    /// log acknowledged it under the fsync policy. Completions of one user's writes come in the order applied.
    ///
    /// `early` is work the caller would otherwise do in `completion` and which needs no acknowledgement (computing
    /// an answer, not sending it): when `runsWorkWhileSyncing`, the store may run it, on any thread and at most
    /// once, while an fsync is out (usually the write's own, possibly a later one's). The caller must not rely on
    /// it having run, nor on its running before `completion`.
    ///
    /// `followUp` runs before `write` returns (not escaping): its context lives on the caller's stack, where an
    /// optional, escaping one was an allocation per donation.
    func write(
        _ mutation: Mutation, followUp: (UserContext?, UserContext?) -> [Action],
        early: (@Sendable (UserStore.Applied) -> Void)?,
        completion: @escaping @Sendable (Result<UserStore.Applied, StoreError>) -> Void)
    /// Whether `write` may run its `early` work before acknowledging: without, handing it over is wasted.
    var runsWorkWhileSyncing: Bool { get }
    /// Counts and state for readiness, status and metrics.
    var health: StoreHealth { get }
    /// Users recovered from a snapshot that nothing has read or written since, still held as their snapshot
    /// records (decoded on first use): for metrics, as the memory they will take once touched is still to come.
    var usersStillEncoded: Int { get }
    /// The user's base and records as the retained files hold them, read-only (docs/api.md, "History"): each record
    /// goes to `visitor` with the user's state before and after it. With `baseBefore`, from the nearest base
    /// (snapshot) before that seq; without, from the oldest, so every reachable record is visited. Reads the
    /// retained log: call it off the event loops.
    func userLog<Visitor: UserLogVisitor>(
        of user: String, baseBefore seq: UInt64?, into visitor: inout Visitor
    ) throws(HistoryReadError) -> UserLog
    /// Calls `observer`, on the store's own thread, as snapshots and compactions start and end.
    func observeActivity(_ observer: @escaping @Sendable (StoreActivity) -> Void)
}

extension ContextStore {
    /// A store that keeps no count: every reader reads the context.
    public func contextChanges(of user: String) -> UInt64? { nil }

    /// A write with no early work.
    public func write(
        _ mutation: Mutation, followUp: (UserContext?, UserContext?) -> [Action],
        completion: @escaping @Sendable (Result<UserStore.Applied, StoreError>) -> Void
    ) {
        write(mutation, followUp: followUp, early: nil, completion: completion)
    }

    /// A write with no follow-up actions and no early work.
    public func write(_ mutation: Mutation, completion: @escaping @Sendable (Result<UserStore.Applied, StoreError>) -> Void) {
        write(mutation, followUp: { _, _ in [] }, early: nil, completion: completion)
    }

    /// A store without a log has no history.
    public func userLog<Visitor: UserLogVisitor>(
        of user: String, baseBefore seq: UInt64?, into visitor: inout Visitor
    ) throws(HistoryReadError) -> UserLog { throw .noLog }
    /// A store without snapshots has nothing to report.
    public func observeActivity(_ observer: @escaping @Sendable (StoreActivity) -> Void) {}
}

/// How the store is doing, as data.
public struct StoreHealth: Sendable, Equatable {
    public var users: Int
    public var lastSeq: UInt64
    public var lastSnapshotSeq: UInt64
    public var fsync: FsyncPolicy
    public var fsyncs: Int
    public var snapshotFailures: Int
    /// Set once a log write failed: writes are refused until a restart.
    public var failure: StorageFailure?

    public init(
        users: Int, lastSeq: UInt64, lastSnapshotSeq: UInt64, fsync: FsyncPolicy, fsyncs: Int, snapshotFailures: Int,
        failure: StorageFailure?
    ) {
        self.users = users
        self.lastSeq = lastSeq
        self.lastSnapshotSeq = lastSnapshotSeq
        self.fsync = fsync
        self.fsyncs = fsyncs
        self.snapshotFailures = snapshotFailures
        self.failure = failure
    }
}

extension Database: ContextStore {
    public func context(of user: String) -> UserContext? { store.context(of: user) }
    public func contextChanges(of user: String) -> UInt64? { store.contextChanges(of: user) }
    public var limits: ContextLimits { store.limits }
    public var usersStillEncoded: Int { store.usersStillEncoded }
    public var runsWorkWhileSyncing: Bool { log.runsWorkWhileSyncing }
    public var health: StoreHealth {
        StoreHealth(
            users: store.userCount, lastSeq: log.lastSeq, lastSnapshotSeq: lastSnapshotSeq, fsync: options.fsync,
            fsyncs: log.fsyncs, snapshotFailures: snapshotFailures, failure: log.failed)
    }
}
