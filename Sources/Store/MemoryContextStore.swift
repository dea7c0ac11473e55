import Rules

/// A `ContextStore` with no disk: the same shards and reducer as the daemon's, writes numbered in memory and
/// acknowledged at once, on the caller's thread. Scenario runs (`specd test`) use it, so a rule author's test runs
/// the daemon's write path without a data directory.
public final class MemoryContextStore: ContextStore {
    private let store: UserStore

    public init(initial: [ByteKey: UserContext] = [:], history: HistoryPolicy = HistoryPolicy(), limits: ContextLimits = ContextLimits()) {
        store = UserStore(shardCount: 1, policy: history, limits: limits, initial: initial, numbersWrites: true)
    }

    public func context(of user: String) -> UserContext? { store.context(of: user) }

    public func contextChanges(of user: String) -> UInt64? { store.contextChanges(of: user) }

    public var limits: ContextLimits { store.limits }

    public func write(
        _ mutation: Mutation, followUp: (UserContext?, UserContext?) -> [Action],
        early: (@Sendable (UserStore.Applied) -> Void)?, completion: @escaping @Sendable (Result<UserStore.Applied, StoreError>) -> Void
    ) {
        do {
            completion(.success(try store.apply(mutation, followUp: followUp)))
        } catch {
            completion(.failure(error))
        }
    }

    /// Writes are acknowledged at once: there is no fsync to work beside.
    public var runsWorkWhileSyncing: Bool { false }

    /// Nothing here comes from a snapshot.
    public var usersStillEncoded: Int { 0 }

    public var health: StoreHealth {
        StoreHealth(
            users: store.userCount, lastSeq: store.lastNumberedSeq, lastSnapshotSeq: 0, fsync: .never, fsyncs: 0,
            snapshotFailures: 0, failure: nil)
    }
}
