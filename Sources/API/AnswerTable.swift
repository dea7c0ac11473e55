/// The answer cache's table: its keys and values in two dense arrays, found through open addressing on each key's
/// keyed digest (`AnswerCache.Key.digest`). A `Dictionary` hashed the key's three strings again with `Hasher` on
/// every read (some 600 of a kept answer's 16 000 instructions); here the digest, computed once per key, is the
/// hash, and a probe compares it before any byte.
///
/// Slots hold positions in the dense arrays (-1: empty), at most half of them used, so a probe meets an empty slot
/// within a few. Removal shifts the slots after it back (no tombstones, so probes never lengthen with churn), and
/// the dense arrays stay dense by moving their last entry into the hole. Eviction draws a position at random, as
/// the `Dictionary`'s per-process order did (see `AnswerCache`).
///
/// A value type; its owner keeps it under a lock (`AnswerCache`'s mutex).
struct AnswerTable<Value> {
    private(set) var keys: [AnswerCache.Key] = []
    private(set) var values: [Value] = []
    /// Plain `Int`s: an operator's budget has no upper bound, so neither has the count (`Int32` would trap past
    /// 2^31 entries, however unlikely a budget that large is).
    private var slots: [Int]
    /// xorshift64 state for eviction draws; never 0.
    private var randomState: UInt64

    init(seed: UInt64 = UInt64.random(in: 1...UInt64.max)) {
        slots = Array(repeating: -1, count: 16)
        randomState = seed == 0 ? 0x9E37_79B9_7F4A_7C15 : seed
    }

    var count: Int { keys.count }
    var isEmpty: Bool { keys.isEmpty }

    /// The dense position of `key`, if kept.
    func position(of key: AnswerCache.Key) -> Int? {
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: key.digest) & mask
        while true {
            let position = slots[slot]
            if position < 0 { return nil }
            // `==` compares the digests first: another key in the run costs one comparison.
            if keys[position] == key { return position }
            slot = (slot + 1) & mask
        }
    }

    /// Inserts, or replaces and returns the value replaced.
    mutating func updateValue(_ value: Value, forKey key: AnswerCache.Key) -> Value? {
        if let position = position(of: key) {
            let old = values[position]
            values[position] = value
            return old
        }
        if (keys.count + 1) * 2 > slots.count { grow() }
        place(keys.count, digest: key.digest)
        keys.append(key)
        values.append(value)
        return nil
    }

    /// Removes the entry at a dense position; the last entry moves into its place.
    @discardableResult
    mutating func remove(at position: Int) -> (key: AnswerCache.Key, value: Value) {
        let mask = slots.count - 1
        // Free its slot, shifting back every slot after it that probing would otherwise no longer reach.
        var hole = slot(holding: position, digest: keys[position].digest)
        var next = (hole + 1) & mask
        while slots[next] >= 0 {
            let home = Int(truncatingIfNeeded: keys[slots[next]].digest) & mask
            // The entry at `next` may fill the hole unless its home lies after the hole, up to `next` (cyclically).
            if (next - home) & mask >= (next - hole) & mask {
                slots[hole] = slots[next]
                hole = next
            }
            next = (next + 1) & mask
        }
        slots[hole] = -1
        let last = keys.count - 1
        if position != last {
            slots[slot(holding: last, digest: keys[last].digest)] = position
            keys.swapAt(position, last)
            values.swapAt(position, last)
        }
        return (keys.removeLast(), values.removeLast())
    }

    mutating func removeValue(forKey key: AnswerCache.Key) -> Value? {
        guard let position = position(of: key) else { return nil }
        return remove(at: position).value
    }

    /// A position drawn at random other than `excluded`'s; `nil` when no other is kept.
    mutating func randomPosition(excluding excluded: AnswerCache.Key) -> Int? {
        guard !keys.isEmpty else { return nil }
        randomState ^= randomState << 13
        randomState ^= randomState >> 7
        randomState ^= randomState << 17
        let drawn = Int(randomState % UInt64(keys.count))
        if keys[drawn] != excluded { return drawn }
        // The excluded key is kept at most once: any other position will do.
        return keys.count > 1 ? (drawn + 1) % keys.count : nil
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
        for position in keys.indices { place(position, digest: keys[position].digest) }
    }
}
