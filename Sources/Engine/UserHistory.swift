import Rules
import Store

/// The history use cases, as visitors of a user's log (`ContextStore.userLog`): a page of records, and one record's
/// state for "why then". Each keeps what its answer needs while the log streams by — a page at most `limit` records
/// with their states, an explanation one state — so a user with a million records costs time, not memory.
///
/// Erased users have no history: only the records after the user's last `erase` are the user's (an erase is the
/// end of one user's story; a later write starts another's).
enum UserHistory {
    /// The most records one page holds; the default is 50.
    static let maximumLimit = 500
    static let defaultLimit = 50

    /// One visible record kept with the user's state around it.
    struct Kept {
        let record: UserLog.Record
        let before: UserContext?
        let after: UserContext?
    }

    /// The newest `limit` visible records with seq below `before`.
    struct PageCollector: UserLogVisitor {
        let limit: Int
        let before: UInt64?
        /// Ascending; the live part starts at `first` (dropped entries are removed in batches, not one by one).
        private var kept: [Kept] = []
        private var first = 0
        /// Whether a visible record older than the page was passed over.
        private(set) var hasOlder = false
        /// Whether the log holds an erase of the user: then the base and the records before it are not the user's.
        private(set) var erased = false
        private(set) var base: UserContext?

        init(limit: Int, before: UInt64?) {
            self.limit = max(0, limit)
            self.before = before
        }

        mutating func start(baseSeq: UInt64, base: UserContext?) {
            self = PageCollector(limit: limit, before: before)
            self.base = base
        }

        mutating func visit(_ record: UserLog.Record, before state: UserContext?, after: UserContext?) {
            if record.mutation.actions.contains(.erase) {
                kept.removeAll()
                first = 0
                hasOlder = false
                erased = true
                return
            }
            guard before.map({ record.seq < $0 }) ?? true else { return }
            kept.append(Kept(record: record, before: state, after: after))
            if kept.count - first > limit {
                first += 1
                hasOlder = true
            }
            if first >= max(limit, 64) {
                kept.removeFirst(first)
                first = 0
            }
        }

        /// The page, newest first.
        var newestFirst: [Kept] { kept[first...].reversed() }
        /// Records held right now, the page and older ones not yet dropped: fewer than the page plus max(page, 64).
        var held: Int { kept.count }
    }

    /// The state just after the user's record `seq`, and whether a later erase ended that story.
    struct RecordCollector: UserLogVisitor {
        let seq: UInt64
        private(set) var found: Kept?
        private(set) var replayed = 0
        private(set) var erasedAfter = false

        init(seq: UInt64) { self.seq = seq }

        mutating func start(baseSeq: UInt64, base: UserContext?) { self = RecordCollector(seq: seq) }

        mutating func visit(_ record: UserLog.Record, before: UserContext?, after: UserContext?) {
            let erases = record.mutation.actions.contains(.erase)
            guard found == nil else {
                if erases { erasedAfter = true }
                return
            }
            replayed += 1
            // An erase record is the end of a story, not a moment of one.
            if record.seq == seq, !erases { found = Kept(record: record, before: before, after: after) }
        }
    }

    static func page(_ collector: PageCollector, log: UserLog, user: String, rules: RuleSet) -> HistoryPage {
        let entries = collector.newestFirst.map { entry($0, user: user, rules: rules) }
        return HistoryPage(
            user: user, entries: entries, nextBefore: collector.hasOlder ? entries.last?.seq : nil, oldestSeq: log.oldestSeq,
            lastSeq: log.lastSeq, compacted: !collector.erased && collector.base != nil)
    }

    /// The flag as it stood just after the record `seq`, at that record's instant.
    static func explain(
        _ collector: RecordCollector, log: UserLog, user: String, flag: Flag, appVersion: String?, now: Instant, current: UserContext
    ) throws(HistoryError) -> ExplainedRecord {
        let seq = collector.seq
        if seq < log.oldestSeq { throw .compacted(oldest: log.oldestSeq) }
        if seq > log.lastSeq { throw .beyondLast(lastSeq: log.lastSeq) }
        guard let found = collector.found, !collector.erasedAfter else { throw .notUsersRecord }
        let at = found.record.mutation.now
        let request = RequestAttributes(userID: user, appVersion: appVersion ?? donatedVersion(found.record.mutation))
        let input = EvaluationInput(context: found.after ?? UserContext(), now: at, request: request)
        let today = flag.evaluate(EvaluationInput(context: current, now: now, request: request))
        return ExplainedRecord(
            user: user, seq: seq, at: at, key: flag.key, evaluation: flag.evaluate(input), explain: flag.explain(input),
            baseSeq: log.baseSeq, replayed: collector.replayed, now: today)
    }

    private static func entry(_ kept: Kept, user: String, rules: RuleSet) -> HistoryEntry {
        let mutation = kept.record.mutation
        let changes = FlagChange.between(kept.before, kept.after, user: user, in: rules, now: mutation.now, appVersion: donatedVersion(mutation))
        var fired: [(trigger: String, at: Instant)] = []
        for case .recordTriggerFire(let trigger, let at) in mutation.actions { fired.append((trigger, at)) }
        return HistoryEntry(seq: kept.record.seq, at: mutation.now, actions: mutation.actions, changed: changes, fired: fired)
    }

    /// The app version a donation was made with: the answers the writer saw depend on it.
    private static func donatedVersion(_ mutation: Mutation) -> String? {
        for case .donate(_, _, let version) in mutation.actions { return version }
        return nil
    }
}
