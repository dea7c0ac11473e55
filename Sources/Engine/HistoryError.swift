import Store

/// Why a history read or a "why then" explanation has no answer (docs/api.md, "History").
public enum HistoryError: Error, Equatable, Sendable {
    /// The user does not exist now (never written, or erased: erased users have no history).
    case userNotFound
    /// No flag of that key in the current rules.
    case flagNotFound
    /// The seq is older than anything retained: compaction replaced it with a snapshot. `oldest` is the oldest seq
    /// still reachable.
    case compacted(oldest: UInt64)
    /// The seq is after the newest record in the log.
    case beyondLast(lastSeq: UInt64)
    /// The seq is a record of another user (or of this user before an erase).
    case notUsersRecord
    /// The retained files could not be read.
    case unreadable(HistoryReadError)
}
