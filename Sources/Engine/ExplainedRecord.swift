import Rules

/// A flag explained as it stood just after one of the user's records ("why then").
public struct ExplainedRecord: Sendable {
    public let user: String
    public let seq: UInt64
    public let at: Instant
    public let key: String
    public let evaluation: Evaluation
    public let explain: JSONValue
    /// The seq of the snapshot the context was rebuilt from (0: the log from its first record).
    public let baseSeq: UInt64
    /// The user's records replayed on that base.
    public let replayed: Int
    /// The same flag for the same user, now: so a difference shows at a glance.
    public let now: Evaluation
}
