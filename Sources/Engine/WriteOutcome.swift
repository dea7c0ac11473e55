import Rules
import Store

/// What an acknowledged write did: the store's record of it, the flags it changed, the triggers it fired.
public struct WriteOutcome: Sendable {
    public let applied: UserStore.Applied
    public let changes: [FlagChange]
    public let fired: [(trigger: String, at: Instant)]

    public var seq: UInt64 { applied.seq }
}
