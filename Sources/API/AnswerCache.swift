import Engine
import Rules
import Synchronization

/// One-flag answers (`GET /v1/users/{user}/flags/{key}`) kept for the next read that would compute the same answer:
/// apps poll their flags, and between two polls a user's answer mostly stays what it was. An answer is reused only
/// while everything it was computed from is the same:
/// - the served rule set (the same `Served`: a reload makes a new one);
/// - the user's stored context (the same box, `UserContext.Identity`: a write makes a new one, an erase none);
/// - the request's app version (part of the key);
/// - the clock: from the instant it was computed until its `validUntil` (`Flag.validUntil`, the instant the clock
///   alone could change it, the one clock pushes are driven by; none when only a write can).
///
/// Flags with unknown inputs (flagd definitions, flags reaching one through a prerequisite: JSON Logic may read
/// `$flagd.timestamp`, a clock `validUntil` does not follow) are never kept, nor what-if (`?at=`) or explained
/// answers: the handler decides (`API.oneFlag`).
///
/// An entry holds its rule set and context weakly: it keeps no old rule set or context alive, so the budget counts
/// what it holds (body, tag, key, a fixed allowance for the slot). Erasing a user forgets its answers (`forget`).
/// Bounded by `capacityBytes` in two generations: a lookup promotes an entry from the older one, and when the newer
/// one would pass half the budget the older one is dropped whole (released after the lock), without a recency list
/// to maintain on every hit.
///
/// Threads: every loop thread reads and fills it; one mutex, held for a lookup or an insert.
public final class AnswerCache: Sendable {
    struct Key: Hashable, Sendable {
        /// By bytes, as the store tells users apart: `String`'s `==` and hash are canonical equivalence, under which
        /// two users whose ids are two spellings of one text would share an answer, and many such spellings one
        /// hash bucket. Flag keys name a flag the set has, versions are ASCII: `String` serves for them.
        let user: ByteKey
        let flag: String
        let appVersion: String?

        init(user: String, flag: String, appVersion: String?) {
            self.user = ByteKey(user)
            self.flag = flag
            self.appVersion = appVersion
        }
    }

    typealias Answer = ETag.Tagged

    private struct Entry: @unchecked Sendable {
        // Weak, so a kept answer never keeps a rule set alive; loaded and cleared atomically by the runtime.
        weak var served: RulesHost.Served?
        let context: UserContext.Identity?
        let computedAt: Instant
        let validUntil: Instant?
        let answer: Answer
        /// What the entry counts against the budget.
        let bytes: Int

        func holds(served: RulesHost.Served, context: UserContext?, now: Instant) -> Bool {
            guard self.served === served, now >= computedAt else { return false }
            if let validUntil, now >= validUntil { return false }
            switch (self.context, context) {
            case (nil, nil): return true
            case (let kept?, let current?): return kept.names(current)
            default: return false
            }
        }
    }

    private struct Generations {
        var newer: [Key: Entry] = [:]
        var newerBytes = 0
        var older: [Key: Entry] = [:]
        var olderBytes = 0
    }

    /// 8 MiB: some 20 000 answers of the example rules' size.
    public static let defaultCapacityBytes = 8 << 20

    /// The budget in bytes; 0 keeps nothing.
    public let capacityBytes: Int
    private let generations = Mutex(Generations())
    /// Reads answered from the cache, and reads that asked it and computed the answer (metrics).
    private let hitCount = Atomic<Int>(0)
    private let missCount = Atomic<Int>(0)
    public var hits: Int { hitCount.load(ordering: .relaxed) }
    public var misses: Int { missCount.load(ordering: .relaxed) }

    /// What a slot costs beyond the bytes an entry holds: the key's and the entry's fields, the two header lists
    /// (their fixed fields shared), the tables' overhead.
    static let entryOverhead = 320

    public init(capacityBytes: Int) {
        self.capacityBytes = max(0, capacityBytes)
    }

    /// The answer kept for `key` if it still holds for this rule set, context and instant.
    func answer(for key: Key, served: RulesHost.Served, context: UserContext?, now: Instant) -> Answer? {
        guard capacityBytes > 0 else { return nil }
        // A generation dropped by a promotion is released here, after the lock: freeing thousands of answers while
        // holding it would hold up every other loop's read.
        var dropped: [Key: Entry]?
        let found = generations.withLock { generations -> Answer? in
            if let entry = generations.newer[key] {
                return entry.holds(served: served, context: context, now: now) ? entry.answer : nil
            }
            guard !generations.older.isEmpty, let entry = generations.older.removeValue(forKey: key) else { return nil }
            generations.olderBytes -= entry.bytes
            guard entry.holds(served: served, context: context, now: now) else { return nil }
            dropped = Self.insert(entry, for: key, into: &generations, budget: capacityBytes)
            return entry.answer
        }
        _ = consume dropped
        if found == nil { missCount.add(1, ordering: .relaxed) } else { hitCount.add(1, ordering: .relaxed) }
        return found
    }

    /// Keeps an answer computed at `computedAt` from this rule set and context, good until `validUntil`.
    func keep(
        _ answer: Answer, for key: Key, served: RulesHost.Served, context: UserContext?, computedAt: Instant, validUntil: Instant?
    ) {
        let bytes =
            answer.body.count + 2 * answer.etag.utf8.count + key.user.string.utf8.count + key.flag.utf8.count
            + (key.appVersion?.utf8.count ?? 0) + Self.entryOverhead
        // An answer larger than a generation would push out everything else and be dropped next anyway.
        guard bytes <= capacityBytes / 2 else { return }
        let entry = Entry(
            served: served, context: context.map(UserContext.Identity.init), computedAt: computedAt, validUntil: validUntil,
            answer: answer, bytes: bytes)
        let dropped = generations.withLock { Self.insert(entry, for: key, into: &$0, budget: capacityBytes) }
        _ = consume dropped // released after the lock (see `answer(for:)`)
    }

    /// Forgets every answer kept for the user (an erase: no copy of the user's id or answers stays behind). A pass
    /// over both generations, under the lock: erasing is rare, the cache bounded.
    public func forget(user: String) {
        let user = ByteKey(user)
        var forgotten: [Entry] = []
        generations.withLock { generations in
            for (key, entry) in generations.newer where key.user == user {
                forgotten.append(entry)
                generations.newer[key] = nil
                generations.newerBytes -= entry.bytes
            }
            for (key, entry) in generations.older where key.user == user {
                forgotten.append(entry)
                generations.older[key] = nil
                generations.olderBytes -= entry.bytes
            }
        }
        _ = consume forgotten
    }

    /// Answers kept now, both generations (metrics and tests).
    public var count: Int { generations.withLock { $0.newer.count + $0.older.count } }

    /// Bytes counted against the budget now, both generations (metrics).
    public var bytes: Int { generations.withLock { $0.newerBytes + $0.olderBytes } }

    /// Whether an answer is kept for `key`, valid or not (tests).
    func contains(_ key: Key) -> Bool { generations.withLock { $0.newer[key] != nil || $0.older[key] != nil } }

    /// Returns the older generation it dropped, if it dropped one, for the caller to release after the lock.
    private static func insert(_ entry: Entry, for key: Key, into generations: inout Generations, budget: Int) -> [Key: Entry]? {
        // A key already in the newer generation (an answer recomputed after a write) is taken out first, so that
        // its new size is checked against the budget like any other.
        if let replaced = generations.newer.removeValue(forKey: key) { generations.newerBytes -= replaced.bytes }
        // Each generation holds at most half the budget: the older one is dropped when the newer one would pass
        // it. A key also left in the older one is shadowed (the newer is asked first) until then.
        var dropped: [Key: Entry]?
        if generations.newerBytes + entry.bytes > budget / 2 {
            let kept = generations.newer.count
            dropped = generations.older
            generations.older = generations.newer
            generations.olderBytes = generations.newerBytes
            generations.newer = Dictionary(minimumCapacity: kept)
            generations.newerBytes = 0
        }
        generations.newer[key] = entry
        generations.newerBytes += entry.bytes
        return dropped
    }
}
