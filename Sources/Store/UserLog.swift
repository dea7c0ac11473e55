import Rules

/// One user's part of the retained data directory (docs/api.md, "History"): the user's context in a base — a
/// snapshot, or nothing when the log from its very first record is still on disk — and every record of the user
/// after it, oldest first. Read from the files, never from the live shards, so reading it changes nothing.
public struct UserLog: Sendable {
    /// One logged mutation and the seq it was committed at.
    public struct Record: Sendable, Equatable {
        public let seq: UInt64
        public let mutation: Mutation
    }

    /// The seq the base covers: the snapshot's, or 0 for the log from its first record.
    public let baseSeq: UInt64
    /// The user's context in the base (`nil`: the user was not in it).
    public let base: UserContext?
    /// The user's records after `baseSeq` (and up to the limit asked for), oldest first.
    public let records: [Record]
    /// The oldest seq whose state can still be rebuilt: the oldest base's seq + 1. Anything older was compacted.
    public let oldestSeq: UInt64
    /// The newest record in the log when it was read (any user's).
    public let lastSeq: UInt64
    /// The store's donation-history policy: replay must prune as the live store did.
    let policy: HistoryPolicy

    /// Replays the records on the base with the store's own reducer, calling `visit` with each record and the
    /// user's context just before and just after it. A record the reducer refuses (never the case for a logged
    /// one) leaves the state as it was, as replay at startup does.
    public func replay(_ visit: (Record, _ before: UserContext?, _ after: UserContext?) -> Void) {
        var state = base
        for record in records {
            let before = state
            if let next = try? Reducer.apply(record.mutation, to: state, policy: policy, limits: .unlimited) { state = next.state }
            visit(record, before, state)
        }
    }
}
