import Rules

/// Delayed trigger fires waiting for their instant (docs/rules.md, "Triggers"): by id, by (user, trigger) so the
/// delay mode can see what is already pending, and in due order so the clock finds the next one. Pure: the
/// timekeeper owns one under its lock, and says what time it is.
///
/// Users and trigger keys are held as bytes (`ByteKey`): NFC and NFD spellings of one id are two users, and one
/// must never replace or suppress the other's fire.
///
/// The due order is a heap of plain (due, id) pairs of its own, not jobs in the clock's `ClockScheduler`: a busy
/// trigger schedules a fire on most donations (the example's `request-review`, once a user has three), and a job
/// there cost a second lock, a hashed token and a heap of entries holding strings, and again when it came due.
struct PendingFires {
    struct Fire: Sendable, Equatable {
        let id: Int
        let user: String
        let trigger: String
        let due: Instant
        /// When the qualifying donation scheduled it.
        let scheduledAt: Instant
        /// The donation's request (user id, app version), for the re-check when the delay ends.
        let request: RequestAttributes
    }

    private struct Owner: Hashable {
        let user: ByteKey
        let trigger: ByteKey
    }

    /// A fire's place in the due order: earlier due first, then the older fire.
    private struct Entry: Comparable {
        let due: Int64
        let id: Int

        static func < (a: Entry, b: Entry) -> Bool { a.due != b.due ? a.due < b.due : a.id < b.id }
    }

    /// A pending fire and its key in `perOwner`, hashed once when scheduled: hashing the user and trigger again
    /// when the fire was taken cost some 200 instructions of every fire.
    private struct Pending {
        let fire: Fire
        let countKey: UInt64
    }

    private var byID: [Int: Pending] = [:]
    /// Ids per (user, trigger), oldest first: what the `restart` and `first` modes read. Built the first time a fire
    /// in one of those modes is asked for, from every pending fire, and kept from then on; until then a fire in the
    /// `each` mode (the example's `request-review`, on most donations) hashes no user and trigger for it.
    private var byOwner: [Owner: [Int]] = [:]
    private var ownersIndexed = false
    /// Every pending fire in due order. A fire taken out before it is due (cancelled, replaced) leaves its entry
    /// behind, skipped when it reaches the top, and dropped by a rebuild once such entries outnumber the live
    /// ones: a `restart` trigger replaces a fire on every donation.
    private var order = MinHeap<Entry>()
    private var lastID = 0
    /// Pending fires per (user, trigger), whatever the mode: what `maxPerOwner` bounds, keyed by `countKey`.
    private var perOwner: [UInt64: Int] = [:]

    /// A (user, trigger)'s key in `perOwner`: a seeded 64-bit FNV-1a of their bytes. Hashing the two strings for a
    /// dictionary of pairs cost some 1 500 instructions per fire, two percent of a donation; two owners that share
    /// a key (one pair in 2^64, and the seed is the process's own) would only share one bound.
    private static func countKey(_ user: String, _ trigger: String) -> UInt64 {
        var hash = mixed(countSeed, user)
        hash = (hash ^ 0xFF) &* 0x100_0000_01b3
        return mixed(hash, trigger)
    }

    /// The bytes in place (a native string's): walking the UTF-8 view byte by byte cost more than the rest.
    private static func mixed(_ start: UInt64, _ text: String) -> UInt64 {
        func mix(_ bytes: some Sequence<UInt8>) -> UInt64 {
            var hash = start
            for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
            return hash
        }
        return text.utf8.withContiguousStorageIfAvailable { mix($0) } ?? mix(text.utf8)
    }

    private static let countSeed = 0xcbf2_9ce4_8422_2325 ^ UInt64.random(in: 0...UInt64.max)
    /// Fires not scheduled because their (user, trigger) had `maxPerOwner` pending already.
    private(set) var dropped = 0

    /// Fires one (user, trigger) may have pending. The `each` mode schedules one per qualifying donation, so a
    /// trigger delayed by a week kept every one of a busy user's donations in memory, about 300 bytes each, without
    /// bound (found in review). Past it, a qualifying donation schedules nothing and `dropped` counts it.
    static let maxPerOwner = 1_000

    var count: Int { byID.count }
    /// Entries in the due order, live or left behind by fires taken early: what the rebuild keeps in bounds.
    var dueOrderSize: Int { order.count }
    var all: [Fire] { byID.values.map(\.fire).sorted { ($0.due, $0.id) < ($1.due, $1.id) } }

    /// A qualifying donation asks for a fire at `due`. Returns the new fire (`nil` when the mode ignores it) and the
    /// ids of the pending fires it replaces.
    mutating func add(
        user: String, trigger: String, due: Instant, request: RequestAttributes, mode: Trigger.DelayMode, scheduledAt: Instant? = nil
    ) -> (fire: Fire?, replaced: [Int]) {
        let (id, replaced) = schedule(user: user, trigger: trigger, due: due, request: request, mode: mode, scheduledAt: scheduledAt)
        return (id.flatMap { byID[$0]?.fire }, replaced)
    }

    /// `add` as the clock calls it, once per qualifying donation: the new fire's id, not a copy of the fire.
    mutating func schedule(
        user: String, trigger: String, due: Instant, request: RequestAttributes, mode: Trigger.DelayMode, scheduledAt: Instant? = nil
    ) -> (id: Int?, replaced: [Int]) {
        var replaced: [Int] = []
        var owner: Owner?
        let counted = Self.countKey(user, trigger)
        // The `each` mode always schedules once admitted: counted in the same lookup that checks the bound.
        if mode == .each, !Self.admit(&perOwner[counted, default: 0]) {
            dropped += 1
            return (nil, [])
        }
        if mode != .each || ownersIndexed {
            if !ownersIndexed { indexOwners() }
            let key = Owner(user: ByteKey(user), trigger: ByteKey(trigger))
            owner = key
            switch mode {
            case .each:
                break
            case .restart:
                replaced = byOwner[key] ?? []
                for id in replaced { byID[id] = nil }
                byOwner[key] = nil
                if !replaced.isEmpty {
                    let left = (perOwner[counted] ?? 0) - replaced.count
                    perOwner[counted] = left > 0 ? left : nil
                }
            case .first:
                if let pending = byOwner[key], !pending.isEmpty { return (nil, []) }
            }
        }
        lastID += 1
        byID[lastID] = Pending(
            fire: Fire(id: lastID, user: user, trigger: trigger, due: due, scheduledAt: scheduledAt ?? due, request: request), countKey: counted)
        if let owner { byOwner[owner, default: []].append(lastID) }
        if mode != .each { perOwner[counted, default: 0] += 1 }
        if order.count > 1024, order.count > 2 * byID.count { order.retain { [byID] in byID.index(forKey: $0.id) != nil } }
        order.insert(Entry(due: due.milliseconds, id: lastID))
        return (lastID, replaced)
    }

    /// Counts one more pending fire unless `count` is at the bound.
    private static func admit(_ count: inout Int) -> Bool {
        guard count < maxPerOwner else { return false }
        count += 1
        return true
    }

    /// Every pending fire by (user, trigger), oldest first: ids ascend in scheduling order.
    private mutating func indexOwners() {
        for id in byID.keys.sorted() {
            let fire = byID[id]!.fire
            byOwner[Owner(user: ByteKey(fire.user), trigger: ByteKey(fire.trigger)), default: []].append(id)
        }
        ownersIndexed = true
    }

    /// The pending fire with that id, left in place.
    func fire(_ id: Int) -> Fire? { byID[id]?.fire }

    /// Removes and returns a fire: it came due, or it was cancelled.
    mutating func take(_ id: Int) -> Fire? {
        guard let taken = byID.removeValue(forKey: id) else { return nil }
        let fire = taken.fire
        if let index = perOwner.index(forKey: taken.countKey) {
            if perOwner.values[index] <= 1 { perOwner.remove(at: index) } else { perOwner.values[index] -= 1 }
        }
        guard ownersIndexed else { return fire }
        let owner = Owner(user: ByteKey(fire.user), trigger: ByteKey(fire.trigger))
        // In place, through the index: a copy taken out and stored back was a second hash and a new buffer per fire.
        if let index = byOwner.index(forKey: owner) {
            byOwner.values[index].removeAll { $0 == id }
            if byOwner.values[index].isEmpty { byOwner.remove(at: index) }
        }
        return fire
    }

    /// The earliest instant a pending fire is due.
    mutating func nextDue() -> Instant? {
        dropTaken()
        return order.first.map { Instant(milliseconds: $0.due) }
    }

    /// The fires due at or before `now`, earliest first (the older first at one instant), out of the due order but
    /// still pending: each stays visible (the operations view), cancellable, and seen by `first` and `restart` until
    /// the clock takes it to fire it, one at a time, as its turn comes (a fire's write may wait for an fsync).
    mutating func popDue(now: Instant) -> [(due: Instant, id: Int)] {
        var due: [(due: Instant, id: Int)] = []
        while true {
            dropTaken()
            guard let top = order.first, top.due <= now.milliseconds else { return due }
            // Room for a burst at once: a clock that comes back to a thousand fires due grew the list ten times.
            if due.isEmpty { due.reserveCapacity(min(order.count, 1024)) }
            order.removeFirst()
            due.append((Instant(milliseconds: top.due), top.id))
        }
    }

    private mutating func dropTaken() {
        while let top = order.first, !isPending(top.id) { order.removeFirst() }
    }

    /// Looked up by index, not by value: `byID[id] == nil` copied the fire out (its strings and request retained,
    /// then released) to compare it with nil, twice for each fire the clock ran.
    private func isPending(_ id: Int) -> Bool { byID.index(forKey: id) != nil }
}
