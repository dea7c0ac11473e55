import Rules
import Store

extension Engine {
    /// A page of the user's history, newest first (docs/api.md, "History"). Reads the retained log: it blocks for
    /// a pass over it, so the API runs it off the event loops.
    public func history(of user: String, limit: Int, before: UInt64?) throws(HistoryError) -> HistoryPage {
        guard store.context(of: user) != nil else { throw .userNotFound }
        var collector = UserHistory.PageCollector(limit: limit, before: before)
        let log: UserLog
        do {
            log = try store.userLog(of: user, baseBefore: nil, into: &collector)
        } catch {
            throw .unreadable(error)
        }
        return UserHistory.page(collector, log: log, user: user, rules: rules.current)
    }

    /// The flag `key` as it stood just after the user's record `seq`, rebuilt from the nearest snapshot before it
    /// plus the user's records, and evaluated with the current rules at that record's instant. Read-only.
    public func explain(user: String, seq: UInt64, key: String, appVersion: String?) throws(HistoryError) -> ExplainedRecord {
        guard let current = store.context(of: user) else { throw .userNotFound }
        guard let flag = rules.current.flags[key] else { throw .flagNotFound }
        var collector = UserHistory.RecordCollector(seq: seq)
        let log: UserLog
        do {
            log = try store.userLog(of: user, baseBefore: seq, into: &collector)
        } catch {
            throw .unreadable(error)
        }
        return try UserHistory.explain(
            collector, log: log, user: user, flag: flag, appVersion: appVersion, now: clock.now(), current: current)
    }

    public static var historyDefaultLimit: Int { UserHistory.defaultLimit }
    public static var historyMaximumLimit: Int { UserHistory.maximumLimit }
}
