import Rules
import Store

/// The history use cases on a `UserLog` read from the store: pages of records and a flag explained as of a record.
/// Pure: the log, the rules and the instants are handed in, so tests need no disk.
///
/// Erased users have no history: only the records after the user's last `erase` are the user's (an erase is the
/// end of one user's story; a later write starts another's).
enum UserHistory {
    /// The most records one page holds; the default is 50.
    static let maximumLimit = 500
    static let defaultLimit = 50

    /// Records with seq below `before` (all when `nil`), newest first, at most `limit` of them.
    static func page(_ log: UserLog, user: String, rules: RuleSet, limit: Int, before: UInt64?) -> HistoryPage {
        let visible = recordsAfterLastErase(log.records)
        let older = visible.filter { record in before.map { record.seq < $0 } ?? true }
        let chosen = Array(older.suffix(max(0, limit)).reversed())
        let seqs = Set(chosen.map(\.seq))
        var entries: [UInt64: HistoryEntry] = [:]
        if !seqs.isEmpty {
            log.replay { record, before, after in
                guard seqs.contains(record.seq) else { return }
                entries[record.seq] = entry(record, before: before, after: after, user: user, rules: rules)
            }
        }
        let hasOlder = older.count > chosen.count
        let erased = visible.count < log.records.count
        return HistoryPage(
            user: user, entries: chosen.compactMap { entries[$0.seq] }, nextBefore: hasOlder ? chosen.last?.seq : nil,
            oldestSeq: log.oldestSeq, lastSeq: log.lastSeq, compacted: !erased && log.base != nil)
    }

    /// The flag as it stood just after the record `seq`, at that record's instant.
    static func explain(
        _ log: UserLog, user: String, seq: UInt64, flag: Flag, appVersion: String?, now: Instant, current: UserContext
    ) throws(HistoryError) -> ExplainedRecord {
        if seq < log.oldestSeq { throw .compacted(oldest: log.oldestSeq) }
        if seq > log.lastSeq { throw .beyondLast(lastSeq: log.lastSeq) }
        guard recordsAfterLastErase(log.records).contains(where: { $0.seq == seq }) else { throw .notUsersRecord }
        var found: (record: UserLog.Record, state: UserContext?)?
        var replayed = 0
        log.replay { record, _, after in
            guard found == nil else { return }
            replayed += 1
            if record.seq == seq { found = (record, after) }
        }
        guard let found else { throw .notUsersRecord }
        let at = found.record.mutation.now
        let version = appVersion ?? donatedVersion(found.record.mutation)
        let request = RequestAttributes(userID: user, appVersion: version)
        let input = EvaluationInput(context: found.state ?? UserContext(), now: at, request: request)
        let today = flag.evaluate(EvaluationInput(context: current, now: now, request: request))
        return ExplainedRecord(
            user: user, seq: seq, at: at, key: flag.key, evaluation: flag.evaluate(input), explain: flag.explain(input),
            baseSeq: log.baseSeq, replayed: replayed, now: today)
    }

    static func recordsAfterLastErase(_ records: [UserLog.Record]) -> ArraySlice<UserLog.Record> {
        guard let last = records.lastIndex(where: { $0.mutation.actions.contains(.erase) }) else { return records[...] }
        return records[(last + 1)...]
    }

    private static func entry(_ record: UserLog.Record, before: UserContext?, after: UserContext?, user: String, rules: RuleSet) -> HistoryEntry {
        let mutation = record.mutation
        let changes = FlagChange.between(before, after, user: user, in: rules, now: mutation.now, appVersion: donatedVersion(mutation))
        var fired: [(trigger: String, at: Instant)] = []
        for case .recordTriggerFire(let trigger, let at) in mutation.actions { fired.append((trigger, at)) }
        return HistoryEntry(seq: record.seq, at: mutation.now, actions: mutation.actions, changed: changes, fired: fired)
    }

    /// The app version a donation was made with: the answers the writer saw depend on it.
    private static func donatedVersion(_ mutation: Mutation) -> String? {
        for case .donate(_, _, let version) in mutation.actions { return version }
        return nil
    }
}
