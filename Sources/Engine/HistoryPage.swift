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
