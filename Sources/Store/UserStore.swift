import Dispatch
import Rules
import Synchronization

/// Every user's context in memory, split over lock-striped shards so concurrent writers to different users rarely
/// meet. Writes run the pure reducer and queue the log record under the shard lock, so the log's order is the
/// order in which each user's state changed.
///
/// Users are keyed by the bytes of their id (`ByteKey`), never by `String` equality: NFC and NFD `café` are two
/// users in every shard, the log and snapshots alike. Callers pass `String`s; the conversion happens here.
public final class UserStore: Sendable {
    final class Shard: Sendable {
        let users = Mutex(UserTable())
        /// Counts the writes applied to this shard's users (`contextChanges`): raised under the lock, after the
        /// table changed. Wrapping: readers only compare it for equality, and no write may trap.
        let changes = Atomic<UInt64>(0)
    }

    private let shards: [Shard]
    let policy: HistoryPolicy
    /// Per-user caps on new writes; replay applies none (see `Reducer.apply`).
    public let limits: ContextLimits
    let log: AppendLog?
    /// Users that exist, kept exact under the shard locks so a cap check never scans the shards.
    private let total = Atomic<Int>(0)
    /// New users are refused beyond this many (0: no cap).
    public let maxUsers: Int
    /// Without a log, writes are numbered here when asked (a scenario run's seqs), else they all get seq 0.
    private let numbersWrites: Bool
    private let lastMemorySeq = Atomic<UInt64>(0)
    /// Recovered users still held as their snapshot records: exact, counted down under the shard locks.
    private let recordsLeft = Atomic<Int>(0)

    public init(
        shardCount: Int = 64, policy: HistoryPolicy = HistoryPolicy(), limits: ContextLimits = ContextLimits(), log: AppendLog? = nil,
        initial: [ByteKey: UserContext] = [:], maxUsers: Int = 0, numbersWrites: Bool = false
    ) {
        self.numbersWrites = numbersWrites
        shards = (0..<max(1, shardCount)).map { _ in Shard() }
        self.policy = policy
        self.limits = limits
        self.log = log
        self.maxUsers = max(0, maxUsers)
        for (user, context) in initial { shard(for: user.string).users.withLock { $0.users[user] = context } }
        total.store(initial.count, ordering: .relaxed)
    }

    /// Takes recovered users already spread as `shardIndex` spreads them (`SnapshotFile.load`): each table moves
    /// into its shard whole, with no per-user copy.
    convenience init(
        shardTables: [UserTable], policy: HistoryPolicy = HistoryPolicy(), limits: ContextLimits = ContextLimits(),
        log: AppendLog? = nil, maxUsers: Int = 0
    ) {
        self.init(shardCount: shardTables.count, policy: policy, limits: limits, log: log, maxUsers: maxUsers)
        var count = 0
        var records = 0
        for (index, table) in shardTables.enumerated() {
            count += table.count
            records += table.encoded.count
            shards[index].users.withLock {
                $0 = table
                shards[index].changes.wrappingAdd(1, ordering: .releasing)
            }
        }
        total.store(count, ordering: .relaxed)
        recordsLeft.store(records, ordering: .relaxed)
    }

    @inline(__always)
    public var shardCount: Int { shards.count }

    private func shard(for user: String) -> Shard {
        shards[Self.shardIndex(of: user, shardCount: shards.count)]
    }

    /// A cheap, stable spread (FNV-1a): Swift's per-process seeded Hasher would also do, but this keeps shard
    /// assignment reproducible, so recovery can sort records into shards before the store exists.
    @inline(__always)
    static func shardIndex(of user: String, shardCount: Int) -> Int {
        var hash: UInt32 = 2_166_136_261
        // Over the contiguous bytes: iterating the UTF-8 view cost some 30 instructions a byte, on every request.
        var user = user
        user.withUTF8 { bytes in
            for byte in bytes { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        }
        return Int(hash % UInt32(shardCount))
    }

    public func context(of user: String) -> UserContext? {
        shard(for: user).users.withLock { context(ByteKey(user), in: &$0) }
    }

    /// A count that every write to the user's shard raises (see `ContextStore.contextChanges`): read without the
    /// lock, one atomic load.
    public func contextChanges(of user: String) -> UInt64 {
        shard(for: user).changes.load(ordering: .acquiring)
    }

    /// The user's context in `table` (held under its shard's lock), a recovered user decoded on first touch.
    private func context(_ user: ByteKey, in table: inout UserTable) -> UserContext? {
        if let context = table.users[user] { return context }
        guard let context = table.decodeIfEncoded(user) else { return nil }
        recordDecoded()
        return context
    }

    /// Decodes every recovered user whose log records still wait for it (`UserTable.deferred`), a few at a time
    /// under each shard's lock. Taking a snapshot does this first: a snapshot writes such a user by decoding it
    /// and applying its records, and without this every snapshot would do it again until the user was touched.
    /// Returns the users decoded.
    @discardableResult
    func settleDeferred(batch: Int = 64) -> Int {
        var settled = 0
        for shard in shards {
            while true {
                let outcome = shard.users.withLock { table in
                    let outcome = table.settleDeferred(limit: batch)
                    for _ in 0..<outcome.decoded { recordDecoded() }
                    return outcome
                }
                settled += outcome.decoded
                if !outcome.more { break }
            }
        }
        return settled
    }

    /// Counts a recovered user's record decoded (and freed). The loading thread allocated the records together,
    /// and a freed one goes back to its arena, where the request threads that decode users (each allocating from
    /// an arena of its own) rarely reuse it: once every user had been read, a million users' records left 200 MB
    /// the process kept (`bench.sh`, bytes/user-read). A page comes free only once every record on it is decoded,
    /// so the free pages are handed back each time what is left halves, and when the last record goes.
    private func recordDecoded() {
        let left = recordsLeft.wrappingSubtract(1, ordering: .relaxed).newValue
        if Self.releasesFreePages(recordsLeft: left) { HeapRelease.returnFreePagesInBackground() }
    }

    /// Whether decoding down to `left` records hands free pages back: at 0, and at each power of two from 1 024 up
    /// (eleven times over a million users' warm-up; each costs up to a tenth of a second on a background thread).
    static func releasesFreePages(recordsLeft left: Int) -> Bool {
        left == 0 || (left >= 1024 && left & (left - 1) == 0)
    }

    /// Users that exist now: one atomic load.
    public var userCount: Int { total.load(ordering: .relaxed) }

    /// The seq of the last numbered write without a log (`numbersWrites`).
    public var lastNumberedSeq: UInt64 { lastMemorySeq.load(ordering: .relaxed) }

    /// The outcome of one applied mutation.
    /// A reference: a write's outcome is handed from the store to the engine, the answer and the streams, and
    /// each copy of a value with two contexts retained some twenty buffers.
    public final class Applied: Sendable {
        /// The log seq (without a log: 0, or the store's own number with `numbersWrites`).
        public let seq: UInt64
        public let previous: UserContext?
        public let state: UserContext?
        public let effects: [Effect]

        init(seq: UInt64, previous: UserContext?, state: UserContext?, effects: [Effect]) {
            self.seq = seq
            self.previous = previous
            self.state = state
            self.effects = effects
        }
    }

    /// Applies the mutation atomically: either the reducer refuses it (nothing changes, nothing is logged) or the
    /// new state is in memory and its record queued. Durability is the caller's wait (`log.whenAcknowledged`).
    ///
    /// `followUp` sees the state before and after and may add actions to the same batch (trigger fires), so the
    /// log holds one record and replay needs no rules.
    ///
    /// `sequenced` runs under the shard lock once the record has its seq, so whatever it records is in the order
    /// the shard applied its writes (the database releases acknowledgements in that order).
    public func apply(
        _ mutation: Mutation, followUp: (UserContext?, UserContext?) -> [Action] = { _, _ in [] },
        sequenced: ((UInt64) -> Void)? = nil
    ) throws(StoreError) -> Applied {
        let shard = shard(for: mutation.user)
        let key = ByteKey(mutation.user)
        return try shard.users.withLock { table throws(StoreError) -> Applied in
            // Three copies of the context per write: the previous state out of the table, the state the reducer
            // changes (copy-on-write from it), and the new state into the table; the outcome takes both by move.
            // The user's slot is found once and written through: a lookup and then a store by key hashed the id
            // twice per write.
            let slot = table.users.index(forKey: key)
            let previous = slot.map { table.users.values[$0] } ?? context(key, in: &table)
            var mutation = mutation
            var state = previous
            var effects: [Effect]
            do throws(ReducerError) {
                effects = try Reducer.applyInPlace(mutation, to: &state, policy: policy, limits: limits)
                let extra = followUp(previous, state)
                if !extra.isEmpty {
                    mutation.actions += extra
                    state = previous
                    effects = try Reducer.applyInPlace(mutation, to: &state, policy: policy, limits: limits)
                }
            } catch {
                throw .rejected(error)
            }
            let change = (previous == nil ? 0 : -1) + (state == nil ? 0 : 1)
            if change > 0 {
                // Reserve the slot first, so two shards creating users at once cannot both take the last one.
                let count = total.wrappingAdd(1, ordering: .relaxed).newValue
                if maxUsers > 0, count > maxUsers {
                    total.wrappingSubtract(1, ordering: .relaxed)
                    throw .capacity(limit: maxUsers)
                }
            }
            var seq: UInt64 = 0
            if let log {
                do throws(StorageFailure) {
                    seq = try log.append(mutation)
                } catch {
                    if change > 0 { total.wrappingSubtract(1, ordering: .relaxed) }
                    throw .storageFailed(error)
                }
            } else if numbersWrites {
                seq = lastMemorySeq.add(1, ordering: .relaxed).newValue
            }
            if change < 0 { total.wrappingSubtract(1, ordering: .relaxed) }
            if seq != 0 { sequenced?(seq) }
            if let slot, let state {
                table.users.values[slot] = state
            } else {
                table.users[key] = state
            }
            // After the table changed, before the lock is let go: a reader that sees the old count read it before
            // this write, and one that sees the new count finds the new context.
            shard.changes.wrappingAdd(1, ordering: .releasing)
            return Applied(seq: seq, previous: consume previous, state: consume state, effects: effects)
        }
    }

    /// A consistent cut: every shard locked at once, so the copies hold exactly the records up to the returned seq.
    /// Copying a dictionary is O(1) (copy-on-write); writers pay for the copy later, one shard at a time.
    func capture(rotating: Bool) -> (seq: UInt64, shards: [UserTable], rotation: Int?) {
        var copies: [UserTable] = []
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

    /// Users recovered from the snapshot and not touched since: still held as their records (`EncodedContext`).
    public var usersStillEncoded: Int { recordsLeft.load(ordering: .relaxed) }

    /// Every user's id, without decoding any user still held as its snapshot record.
    public var userIDs: [ByteKey] {
        var ids: [ByteKey] = []
        ids.reserveCapacity(userCount)
        for shard in shards {
            shard.users.withLock { table in
                ids += table.users.keys
                ids += table.encoded.keys
            }
        }
        return ids
    }

    /// Every user, for tests and comparisons.
    public var allUsers: [ByteKey: UserContext] {
        var all: [ByteKey: UserContext] = [:]
        for shard in shards { all.merge(shard.users.withLock { $0 }.decodedUsers) { $1 } }
        return all
    }
}
