/// The answer cache's table: its entries (key beside value) in one dense array, found through open addressing on
/// each key's keyed digest (`AnswerCache.Key.digest`). A `Dictionary` hashed the key's three strings again with
/// `Hasher` on every read (some 600 of a kept answer's 16 000 instructions); here the digest, computed once per
/// key, is the hash, and a probe compares it before any byte.
///
/// Key and value side by side: a kept answer's read compares the key and then reads the value, and with ten
/// thousand users kept the table is larger than the caches, so each array a read touches is a miss of its own
/// (keys and values in two arrays stalled a profiled read on both).
///
/// Slots hold positions in the dense array (-1: empty), at most half of them used, so a probe meets an empty slot
/// within a few. Removal shifts the slots after it back (no tombstones, so probes never lengthen with churn), and
/// the dense array stays dense by moving its last entry into the hole. Eviction draws a position at random, as
/// the `Dictionary`'s per-process order did (see `AnswerCache`).
///
/// A value type; its owner keeps it under a lock (`AnswerCache`'s mutex).
struct AnswerTable<Value> {
    struct Entry {
        let key: AnswerCache.Key
        var value: Value
    }

    private(set) var entries: [Entry] = []
    /// Plain `Int`s: an operator's budget has no upper bound, so neither has the count (`Int32` would trap past
    /// 2^31 entries, however unlikely a budget that large is).
    private var slots: [Int]
    /// xorshift64 state for eviction draws; never 0.
    private var randomState: UInt64

    init(seed: UInt64 = UInt64.random(in: 1...UInt64.max)) {
        slots = Array(repeating: -1, count: 16)
        randomState = seed == 0 ? 0x9E37_79B9_7F4A_7C15 : seed
    }

    var count: Int { entries.count }
    var isEmpty: Bool { entries.isEmpty }

    /// The keys kept, in dense order (tests).
    var keys: [AnswerCache.Key] { entries.map(\.key) }

    func key(at position: Int) -> AnswerCache.Key { entries[position].key }
    func value(at position: Int) -> Value { entries[position].value }

    /// Changes the value at `position` in place (no copy of it in or out).
    mutating func modifyValue(at position: Int, _ body: (inout Value) -> Void) {
        body(&entries[position].value)
    }

    /// The dense position of `key`, if kept.
    func position(of key: AnswerCache.Key) -> Int? {
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: key.digest) & mask
        while true {
            let position = slots[slot]
            if position < 0 { return nil }
            // `==` compares the digests first: another key in the run costs one comparison.
            if entries[position].key == key { return position }
            slot = (slot + 1) & mask
        }
    }

    /// Inserts, or replaces and returns the value replaced.
    mutating func updateValue(_ value: Value, forKey key: AnswerCache.Key) -> Value? {
        if let position = position(of: key) {
            let old = entries[position].value
            entries[position].value = value
            return old
        }
        if (entries.count + 1) * 2 > slots.count { grow() }
        place(entries.count, digest: key.digest)
        entries.append(Entry(key: key, value: value))
        return nil
    }

    /// Removes the entry at a dense position; the last entry moves into its place.
    @discardableResult
    mutating func remove(at position: Int) -> (key: AnswerCache.Key, value: Value) {
        let mask = slots.count - 1
        // Free its slot, shifting back every slot after it that probing would otherwise no longer reach.
        var hole = slot(holding: position, digest: entries[position].key.digest)
        var next = (hole + 1) & mask
        while slots[next] >= 0 {
            let home = Int(truncatingIfNeeded: entries[slots[next]].key.digest) & mask
            // The entry at `next` may fill the hole unless its home lies after the hole, up to `next` (cyclically).
            if (next - home) & mask >= (next - hole) & mask {
                slots[hole] = slots[next]
                hole = next
            }
            next = (next + 1) & mask
        }
        slots[hole] = -1
        let last = entries.count - 1
        if position != last {
            slots[slot(holding: last, digest: entries[last].key.digest)] = position
            entries.swapAt(position, last)
        }
        let removed = entries.removeLast()
        return (removed.key, removed.value)
    }

    mutating func removeValue(forKey key: AnswerCache.Key) -> Value? {
        guard let position = position(of: key) else { return nil }
        return remove(at: position).value
    }

    /// A position drawn at random other than `excluded`'s; `nil` when no other is kept.
    mutating func randomPosition(excluding excluded: AnswerCache.Key) -> Int? {
        guard !entries.isEmpty else { return nil }
        randomState ^= randomState << 13
        randomState ^= randomState >> 7
        randomState ^= randomState << 17
        let drawn = Int(randomState % UInt64(entries.count))
        if entries[drawn].key != excluded { return drawn }
        // The excluded key is kept at most once: any other position will do.
        return entries.count > 1 ? (drawn + 1) % entries.count : nil
    }

    private func slot(holding position: Int, digest: UInt64) -> Int {
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: digest) & mask
        while slots[slot] != position { slot = (slot + 1) & mask }
        return slot
    }

    private mutating func place(_ position: Int, digest: UInt64) {
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: digest) & mask
        while slots[slot] >= 0 { slot = (slot + 1) & mask }
        slots[slot] = position
    }

    private mutating func grow() {
        slots = Array(repeating: -1, count: slots.count * 2)
        for position in entries.indices { place(position, digest: entries[position].key.digest) }
    }
}
