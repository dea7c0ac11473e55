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
