import Rules

/// One user's part of the retained data directory (docs/api.md, "History"): where the user's story can be rebuilt
/// from — a base, a snapshot or nothing when the log from its very first record is still on disk — and how far the
/// log reaches. The user's records themselves go to a `UserLogVisitor` one at a time, replayed on the base, so a
/// user with a million records never needs them in memory at once.
public struct UserLog: Sendable {
    /// One logged mutation and the seq it was committed at.
    public struct Record: Sendable, Equatable {
        public let seq: UInt64
        public let mutation: Mutation

        public init(seq: UInt64, mutation: Mutation) {
            self.seq = seq
            self.mutation = mutation
        }
    }

    /// The seq the base covers: the snapshot's, or 0 for the log from its first record.
    public let baseSeq: UInt64
    /// The user's context in the base (`nil`: the user was not in it).
    public let base: UserContext?
    /// The oldest seq whose state can still be rebuilt: the oldest base's seq + 1. Anything older was compacted.
    public let oldestSeq: UInt64
    /// The newest record in the log when it was read (any user's).
    public let lastSeq: UInt64
}

/// Receives a user's records, oldest first, each with the user's context just before and just after it, replayed
/// with the store's own reducer and history policy (a record the reducer refuses, never the case for a logged one,
/// leaves the state as it was, as replay at startup does).
public protocol UserLogVisitor {
    /// A read (re)starts from this base: forget anything visited before (a read restarts when compaction removed
    /// a file under it).
    mutating func start(baseSeq: UInt64, base: UserContext?)
    mutating func visit(_ record: UserLog.Record, before: UserContext?, after: UserContext?)
}
