import Rules
import Store

/// One of a user's log records as the history shows it: `{seq, at, action, changed, fired}`, where `action` is the
/// logged batch in the API's words, `changed` the flags whose answer the write changed and `fired` the triggers it
/// fired. `changed` is recomputed by replay with the current rules (the log records writes, not answers); `fired`
/// is read from the record itself (fires are logged with the write that made them).
public struct HistoryEntry: Sendable {
    public let seq: UInt64
    public let at: Instant
    public let actions: [Action]
    public let changed: [FlagChange]
    public let fired: [(trigger: String, at: Instant)]

    public var json: JSONValue {
        [
            "seq": .int(Int(clamping: seq)), "at": .string(ISO8601.format(at)),
            "action": ["ops": .array(actions.map(ActionJSON.encode))],
            "changed": .array(changed.map(\.json)),
            "fired": .array(fired.map { ["trigger": .string($0.trigger), "at": .string(ISO8601.format($0.at))] })
        ]
    }
}

/// A page of a user's history, newest first, with the cursor for the next page.
public struct HistoryPage: Sendable {
    public let user: String
    public let entries: [HistoryEntry]
    /// `before` for the next (older) page; `nil` when this page reaches the oldest retained record of the user.
    public let nextBefore: UInt64?
    /// The oldest seq still reachable after compaction (for every user).
    public let oldestSeq: UInt64
    /// The newest record in the log when it was read.
    public let lastSeq: UInt64
    /// Whether the user has records older than `oldestSeq`, compacted into a snapshot and no longer listed.
    public let compacted: Bool
}

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
