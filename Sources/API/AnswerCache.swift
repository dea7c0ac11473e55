import Engine
import HTTP
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
/// An entry holds its rule set and context by number only: it keeps no old rule set or context alive, so the budget
/// counts what it holds (body, tag, header lists, key, a fixed allowance for the slot). Erasing a user forgets its answers
/// (`forget`). Bounded by `capacityBytes`: an answer that does not fit evicts others, drawn at random
/// (`AnswerTable.randomPosition`). One entry at a time, never a whole generation: dropping
/// thousands of answers at once stalls the loop that does it, and random eviction keeps a working set that fits the
/// budget whole, where two generations of half the budget each did not.
///
/// Threads: every loop thread reads and fills it; one mutex, held for a lookup or an insert.
public final class AnswerCache: Sendable {
    struct Key: Hashable, Sendable {
        /// Ids and keys by bytes, as the store and the rule set tell them apart: `String`'s `==` and hash are
        /// canonical equivalence, under which two users (or two flags) whose names are two spellings of one text
        /// would share an answer, and many such spellings one hash bucket. Versions are ASCII (`Version.isValid`).
        let user: ByteKey
        let flag: ByteKey
        let appVersion: String?
        /// The three hashed under the process's secret key (`hashKey`), once per key: the table's probes start
        /// from it and compare it first. User ids are the client's to choose, so the hash stays keyed: without the
        /// key nobody can pick ids whose digests crowd one run of slots.
        let digest: UInt64

        init(user: String, flag: String, appVersion: String?) {
            self.user = ByteKey(user)
            self.flag = ByteKey(flag)
            self.appVersion = appVersion
            digest = Self.digest(user: user, flag: flag, appVersion: appVersion)
        }

        /// A key with a chosen digest: tests place keys in slots of their choice, collisions included.
        init(user: String, flag: String, appVersion: String?, digest: UInt64) {
            self.user = ByteKey(user)
            self.flag = ByteKey(flag)
            self.appVersion = appVersion
            self.digest = digest
        }

        /// The user, the flag and the version as three parts (`SipHash.Parts`), each ended by 0xFF; no version is a
        /// part of no bytes ended by 0xFE, so no version and an empty one differ.
        static func digest(user: String, flag: String, appVersion: String?) -> UInt64 {
            var parts = SipHash.Parts(key: hashKey)
            append(user, marker: 0xFF, to: &parts)
            append(flag, marker: 0xFF, to: &parts)
            append(appVersion ?? "", marker: appVersion == nil ? 0xFE : 0xFF, to: &parts)
            return parts.finalize()
        }

        @inline(__always)
        private static func append(_ text: String, marker: UInt8, to parts: inout SipHash.Parts) {
            // Read in place; a string without contiguous UTF-8 (bridged) goes through a copy.
            let done: Void? = text.utf8.withContiguousStorageIfAvailable { parts.append(UnsafeRawBufferPointer($0), marker: marker) }
            if done == nil { Array(text.utf8).withUnsafeBytes { parts.append($0, marker: marker) } }
        }

        /// Drawn once per process, as `Hasher`'s own seed is.
        static let hashKey: (UInt64, UInt64) = {
            var generator = SystemRandomNumberGenerator()
            return (generator.next(), generator.next())
        }()

        static func == (lhs: Key, rhs: Key) -> Bool {
            lhs.digest == rhs.digest && lhs.user == rhs.user && lhs.flag == rhs.flag && lhs.appVersion == rhs.appVersion
        }

        func hash(into hasher: inout Hasher) { hasher.combine(digest) }
    }

    typealias Answer = ETag.Tagged

    /// A kept answer and its flag's place in the rule set it was kept for. A struct: an optional tuple is copied
    /// and destroyed through the runtime's generic tuple witnesses.
    struct Hit {
        let kept: Kept
        let flagPosition: Int
    }

    /// What a hit hands out: the 200 ready to send, for a read that does not revalidate an answer kept prepared
    /// (`ETag.Tagged.preparedFields`, see `prepare`), so the read touches the prepared array alone; else the
    /// answer, which decides between 304 and 200 (`ETag.respond`).
    enum Kept {
        case ok(PreparedFields)
        case answer(Answer)
    }

    /// What a lookup by the store's count of changes found (`answer(for:served:changes:now:revalidating:)`).
    enum Lookup {
        /// The answer holds, its user's part of the store unchanged since it was kept or last checked.
        case hit(Hit)
        /// An answer is kept, but that part of the store changed since: whether it holds depends on the context.
        case checkContext
        /// No answer that could hold (none kept, another rule set's, or past its time).
        case none
    }

    private struct Entry: Sendable {
        /// The rule set's number (`Served.number`): a kept answer keeps no rule set alive.
        let served: UInt64
        let context: UserContext.Identity?
        /// The store's count of changes for the user's part of it (`ContextStore.contextChanges`), read before the
        /// context the answer was checked against or computed from; `nil` when the store gave none.
        var contextChanges: UInt64?
        let computedAt: Instant
        let validUntil: Instant?
        let answer: Answer
        /// `answer`'s prepared 200 (`ETag.Tagged.preparedFields`), beside it: a read that needs no more of the
        /// answer reaches it without reading the answer's object.
        let prepared: PreparedFields?
        /// The flag's place in `served`'s rules (`Flag.position`), for counting its evaluation without looking it up.
        let flagPosition: Int
        /// What the entry counts against the budget.
        let bytes: Int

        /// Whether the answer holds for this rule set at `now`, whatever the context.
        func holds(served: RulesHost.Served, now: Instant) -> Bool {
            guard self.served == served.number, now >= computedAt else { return false }
            if let validUntil, now >= validUntil { return false }
            return true
        }

        func holds(served: RulesHost.Served, context: UserContext?, now: Instant) -> Bool {
            guard holds(served: served, now: now) else { return false }
            switch (self.context, context) {
            case (nil, nil): return true
            case (let kept?, let current?): return kept.names(current)
            default: return false
            }
        }
    }

    /// 8 MiB: some 11 000 answers of the example rules' size (`promo-banner` read with an app version counts 753
    /// bytes, prepared: 10 000 users read as `scripts/bench.sh`'s read row reads them held 7.5 MB).
    public static let defaultCapacityBytes = 8 << 20

    /// The budget in bytes; 0 keeps nothing.
    public let capacityBytes: Int
    private let entries = Mutex(Table())
    /// Reads answered from the cache, and reads that asked it and computed the answer (metrics).
    private let missCount = Atomic<Int>(0)
    public var hits: Int { entries.withLock { $0.hits } }
    public var misses: Int { missCount.load(ordering: .relaxed) }

    /// What a slot costs beyond the bytes an entry holds: the key's and the entry's fields, the header list
    /// (its fixed fields shared), the tables' overhead.
    static let entryOverhead = 320

    public init(capacityBytes: Int) {
        self.capacityBytes = max(0, capacityBytes)
    }

    /// The answer kept for `key` if it still holds for this rule set, context and instant, with its flag's position
    /// in that rule set. A hit is counted here; a miss by the caller (`countMiss`), which alone knows whether the
    /// flag is one the cache keeps.
    /// `revalidating`: the read carries `If-None-Match`, so it needs the answer's tag, not only its 200.
    /// `changes`: the store's count of changes for the user's part of it, read before `context`; an answer found to
    /// hold is marked with it, so the next read finds it by that count alone while nothing changes there.
    func answer(
        for key: Key, served: RulesHost.Served, context: UserContext?, now: Instant, revalidating: Bool = false, changes: UInt64? = nil
    ) -> Hit? {
        guard capacityBytes > 0 else { return nil }
        let found = entries.withLock { table -> Hit? in
            // Read in place, through the array's element: bound to a local, the entry was copied out of the
            // table, a retain and a release of each of its references.
            guard let position = table.answers.position(of: key) else { return nil }
            guard table.answers.entries[position].value.holds(served: served, context: context, now: now) else { return nil }
            if let changes, table.answers.entries[position].value.contextChanges != changes {
                table.answers.modifyValue(at: position) { $0.contextChanges = changes }
            }
            table.hits &+= 1
            return Self.hit(at: position, in: table, revalidating: revalidating)
        }
        return found
    }

    /// The kept answer for `key`, when the user's part of the store has not changed since it was kept or last
    /// checked (`changes` is the count the entry was marked with): the read then skips the context's lookup, a
    /// hashed probe of the store under its lock and a touch of the context. `.checkContext` sends the read to
    /// `answer(for:served:context:...)`; `.none` to computing the answer.
    func answer(for key: Key, served: RulesHost.Served, changes: UInt64, now: Instant, revalidating: Bool = false) -> Lookup {
        guard capacityBytes > 0 else { return .none }
        let found = entries.withLock { table -> Lookup in
            guard let position = table.answers.position(of: key) else { return .none }
            guard table.answers.entries[position].value.holds(served: served, now: now) else { return .none }
            guard table.answers.entries[position].value.contextChanges == changes else { return .checkContext }
            table.hits &+= 1
            return .hit(Self.hit(at: position, in: table, revalidating: revalidating))
        }
        return found
    }

    /// The hit for the entry at `position` (which holds): its prepared 200 unless the read revalidates.
    private static func hit(at position: Int, in table: Table, revalidating: Bool) -> Hit {
        let flagPosition = table.answers.entries[position].value.flagPosition
        if !revalidating, let prepared = table.answers.entries[position].value.prepared {
            return Hit(kept: .ok(prepared), flagPosition: flagPosition)
        }
        return Hit(kept: .answer(table.answers.entries[position].value.answer), flagPosition: flagPosition)
    }

    /// The kept `answer` for `key`, prepared (`ETag.Tagged.prepared()`), for a read that found it unprepared: the
    /// entry then holds the prepared answer in its place, so the next reads get the 200 ready to send (`Kept.ok`).
    /// Prepared at its first read again, not when kept: most of an answer's cost is writing its fields, and an
    /// answer kept and never read again (its user written before the next read) would pay it for nothing. The
    /// entry is left alone if it no longer holds `answer` (replaced or evicted meanwhile, by another loop).
    func prepare(_ answer: Answer, for key: Key) -> PreparedFields {
        // Made outside the lock, out of every other loop's way.
        let (prepared, fields) = answer.prepared()
        let evicted = entries.withLock { table -> [Entry] in
            guard let position = table.answers.position(of: key) else { return [] }
            let kept = table.answers.entries[position].value
            guard kept.answer === answer else { return [] }
            let entry = Entry(
                served: kept.served, context: kept.context, contextChanges: kept.contextChanges, computedAt: kept.computedAt,
                validUntil: kept.validUntil, answer: prepared, prepared: fields, flagPosition: kept.flagPosition,
                bytes: Self.bytes(of: prepared, for: key))
            return table.insert(entry, for: key, budget: capacityBytes)
        }
        _ = consume evicted
        return fields
    }

    /// What an entry for `answer` counts against the budget.
    private static func bytes(of answer: Answer, for key: Key) -> Int {
        answer.heldBytes + 2 * answer.etag.utf8.count + key.user.string.utf8.count + key.flag.string.utf8.count
            + (key.appVersion?.utf8.count ?? 0) + entryOverhead
    }

    /// A read of a flag the cache keeps, whose answer it did not hold.
    func countMiss() {
        missCount.add(1, ordering: .relaxed)
    }

    /// Keeps an answer computed at `computedAt` from this rule set and context, good until `validUntil`. `changes`:
    /// the store's count of changes for the user's part of it, read before `context` was.
    func keep(
        _ answer: Answer, flagPosition: Int, for key: Key, served: RulesHost.Served, context: UserContext?, computedAt: Instant,
        validUntil: Instant?, changes: UInt64? = nil
    ) {
        let bytes = Self.bytes(of: answer, for: key)
        // An answer larger than half the budget would push out most others for one user's read.
        guard bytes <= capacityBytes / 2 else { return }
        let entry = Entry(
            served: served.number, context: context.map(UserContext.Identity.init), contextChanges: changes, computedAt: computedAt,
            validUntil: validUntil, answer: answer, prepared: answer.preparedFields, flagPosition: flagPosition, bytes: bytes)
        // What leaves the table is released after the lock, out of every other loop's way.
        let evicted = entries.withLock { $0.insert(entry, for: key, budget: capacityBytes) }
        _ = consume evicted
    }

    /// Forgets every answer kept for the user (an erase: no copy of the user's id or answers stays behind). A pass
    /// over the table, under the lock: erasing is rare, the table bounded.
    public func forget(user: String) {
        let user = ByteKey(user)
        let forgotten = entries.withLock { table -> [Entry] in
            // Only the user's keys are gathered: a list of every key, made under the lock every loop's reads
            // wait on, cost a copy of the whole table.
            var keys: [Key] = []
            for entry in table.answers.entries where entry.key.user == user { keys.append(entry.key) }
            return keys.compactMap { table.remove($0) }
        }
        _ = consume forgotten
    }

    /// Answers kept now (metrics and tests).
    public var count: Int { entries.withLock { $0.answers.count } }

    /// Bytes counted against the budget now (metrics).
    public var bytes: Int { entries.withLock { $0.bytes } }

    /// Whether an answer is kept for `key`, valid or not (tests).
    func contains(_ key: Key) -> Bool { entries.withLock { $0.answers.position(of: key) != nil } }

    /// The kept answers and the bytes they count. Owned by the mutex.
    private struct Table {
        var answers = AnswerTable<Entry>()
        var bytes = 0
        /// Reads answered with a kept answer: counted under the lock the read holds anyway, where an atomic counter
        /// of its own was one more atomic operation a read.
        var hits = 0

        mutating func remove(_ key: Key) -> Entry? {
            guard let entry = answers.removeValue(forKey: key) else { return nil }
            bytes -= entry.bytes
            return entry
        }

        /// Inserts or replaces, then evicts until the budget holds (a replaced entry's new size counts like a new
        /// one's). Returns what left, for the caller to release after the lock.
        mutating func insert(_ entry: Entry, for key: Key, budget: Int) -> [Entry] {
            var evicted: [Entry] = []
            if let replaced = answers.updateValue(entry, forKey: key) {
                bytes -= replaced.bytes
                evicted.append(replaced)
            }
            bytes += entry.bytes
            while bytes > budget, let victim = answers.randomPosition(excluding: key) {
                let removed = answers.remove(at: victim)
                bytes -= removed.value.bytes
                evicted.append(removed.value)
            }
            return evicted
        }
    }
}
