import Dispatch
import Rules
import Synchronization

/// Every user's context in memory, split over lock-striped shards so concurrent writers to different users rarely
/// meet. Writes run the pure reducer and queue the log record under the shard lock, so the log's order is the
/// order in which each user's state changed.
public final class UserStore: Sendable {
    final class Shard: Sendable {
        let users = Mutex<[String: UserContext]>([:])
    }

    private let shards: [Shard]
    let policy: HistoryPolicy
    /// Per-user caps on new writes; replay applies none (see `Reducer.apply`).
    public let limits: ContextLimits
    let log: AppendLog?

    public init(shardCount: Int = 64, policy: HistoryPolicy = HistoryPolicy(), limits: ContextLimits = ContextLimits(), log: AppendLog? = nil,
                initial: [String: UserContext] = [:]) {
        shards = (0..<max(1, shardCount)).map { _ in Shard() }
        self.policy = policy
        self.limits = limits
        self.log = log
        for (user, context) in initial { shard(for: user).users.withLock { $0[user] = context } }
    }

    @inline(__always)
    private func shard(for user: String) -> Shard {
        shards[Self.shardIndex(of: user, shardCount: shards.count)]
    }

    /// A cheap, stable spread (FNV-1a): Swift's per-process seeded Hasher would also do, but this keeps shard
    /// assignment reproducible, so recovery can sort records into shards before the store exists.
    @inline(__always)
    static func shardIndex(of user: String, shardCount: Int) -> Int {
        var hash: UInt32 = 2_166_136_261
        for byte in user.utf8 { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        return Int(hash % UInt32(shardCount))
    }

    /// Replays recovered mutations, one shard per task in parallel: users in different shards are independent,
    /// and within a shard the log order is kept.
    func replay(_ buckets: [[Mutation]]) {
        precondition(buckets.count == shards.count)
        let policy = policy
        DispatchQueue.concurrentPerform(iterations: shards.count) { index in
            shards[index].users.withLock { users in
                for mutation in buckets[index] {
                    // A mutation the reducer refused was refused live too, and never logged; skipping is exact. No
                    // caps: the record was acknowledged, whatever the caps are now.
                    _ = try? Reducer.applyInPlace(mutation, to: &users[mutation.user], policy: policy, limits: .unlimited)
                }
            }
        }
    }

    public func context(of user: String) -> UserContext? {
        shard(for: user).users.withLock { $0[user] }
    }

    public var userCount: Int { shards.reduce(0) { total, shard in total + shard.users.withLock { $0.count } } }

    /// The outcome of one applied mutation.
    public struct Applied: Sendable {
        /// The log seq (0 when there is no log).
        public let seq: UInt64
        public let previous: UserContext?
        public let state: UserContext?
        public let effects: [Effect]
    }

    /// Applies the mutation atomically: either the reducer refuses it (nothing changes, nothing is logged) or the
    /// new state is in memory and its record queued. Durability is the caller's wait (`log.whenAcknowledged`).
    ///
    /// `followUp` sees the state before and after and may add actions to the same batch (trigger fires), so the
    /// log holds one record and replay needs no rules.
    public func apply(_ mutation: Mutation, followUp: ((UserContext?, UserContext?) -> [Action])? = nil) throws(StoreError) -> Applied {
        let shard = shard(for: mutation.user)
        return try shard.users.withLock { users throws(StoreError) -> Applied in
            let previous = users[mutation.user]
            var mutation = mutation
            var result: (state: UserContext?, effects: [Effect])
            do throws(ReducerError) {
                result = try Reducer.apply(mutation, to: previous, policy: policy, limits: limits)
                if let followUp {
                    let extra = followUp(previous, result.state)
                    if !extra.isEmpty {
                        mutation.actions += extra
                        result = try Reducer.apply(mutation, to: previous, policy: policy, limits: limits)
                    }
                }
            } catch {
                throw .rejected(error)
            }
            var seq: UInt64 = 0
            if let log {
                do throws(StorageFailure) {
                    seq = try log.append(MutationCodec.encode(mutation))
                } catch {
                    throw .storageFailed(error)
                }
            }
            users[mutation.user] = result.state
            return Applied(seq: seq, previous: previous, state: result.state, effects: result.effects)
        }
    }

    /// A consistent cut: every shard locked at once, so the copies hold exactly the records up to the returned seq.
    /// Copying a dictionary is O(1) (copy-on-write); writers pay for the copy later, one shard at a time.
    func capture(rotating: Bool) -> (seq: UInt64, shards: [[String: UserContext]], rotation: Int?) {
        var copies: [[String: UserContext]] = []
        var seq: UInt64 = 0
        var rotation: Int?
        func lock(_ index: Int) {
            if index == shards.count {
                seq = log?.lastSeq ?? 0
                if rotating { rotation = log?.requestRotation() }
                return
            }
            shards[index].users.withLock { users in
                copies.append(users)
                lock(index + 1)
            }
        }
        lock(0)
        return (seq, copies, rotation)
    }

    /// Every user, for tests and comparisons.
    public var allUsers: [String: UserContext] {
        var all: [String: UserContext] = [:]
        for shard in shards { shard.users.withLock { all.merge($0) { $1 } } }
        return all
    }
}

/// Why a write was not applied.
public enum StoreError: Error, Equatable, Sendable {
    /// The batch was invalid; nothing was applied.
    case rejected(ReducerError)
    /// The log failed earlier or now; no write is acknowledged until restart.
    case storageFailed(StorageFailure)
}
