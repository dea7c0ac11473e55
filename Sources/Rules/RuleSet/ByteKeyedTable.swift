/// A read-only table keyed by strings compared as bytes: a rule set's flags and triggers. Two flag keys that are
/// canonically equivalent (NFC and NFD `café`) are two flags, as keys are bytes everywhere; a `[String: Flag]` would
/// treat them as one, and building it from both would trap.
///
/// Looked up on every evaluation and every donation, so it is its own open-addressing table over the keys' bytes:
/// a `Dictionary` hashed each key with `Hasher` (SipHash with a per-process seed, some 350 instructions a lookup of
/// its 700) before comparing. That seed guards tables whose keys clients choose; these keys are the operator's,
/// fixed when the rules load, and a client's lookup cannot change what a probe walks, so a plain multiplicative
/// hash of the bytes serves. At most half the slots are used, so a probe meets an empty one within a few.
public struct ByteKeyedTable<Value: Sendable>: Sendable {
    /// One used slot: the key's hash (a cheap first test) and its entry.
    @usableFromInline struct Slot: Sendable {
        @usableFromInline let hash: UInt64
        /// The entry's index, or -1 for an empty slot.
        @usableFromInline let entry: Int

        @usableFromInline init(hash: UInt64, entry: Int) {
            self.hash = hash
            self.entry = entry
        }
    }

    /// Every key's bytes, one after another; entry `i`'s are `pool[spans[i]]`.
    @usableFromInline let pool: [UInt8]
    @usableFromInline let spans: [Range<Int>]
    @usableFromInline let entryValues: [Value]
    /// The keys as given, in the order they were first given.
    private let entryKeys: [String]
    /// A power of two, at least twice the entries.
    @usableFromInline let slots: [Slot]

    /// Later entries with the same bytes replace earlier ones (the compiler refuses duplicates before this).
    init<S: Sequence>(_ entries: S) where S.Element == (String, Value) {
        var positions: [ByteKey: Int] = [:]
        var keys: [String] = []
        var values: [Value] = []
        for (key, value) in entries {
            let bytes = ByteKey(key)
            if let position = positions[bytes] {
                values[position] = value
            } else {
                positions[bytes] = keys.count
                keys.append(key)
                values.append(value)
            }
        }
        var pool: [UInt8] = []
        var spans: [Range<Int>] = []
        for key in keys {
            let start = pool.count
            pool.append(contentsOf: key.utf8)
            spans.append(start..<pool.count)
        }
        var capacity = 8
        while capacity < keys.count * 2 { capacity *= 2 }
        var slots = [Slot](repeating: Slot(hash: 0, entry: -1), count: capacity)
        pool.withUnsafeBufferPointer { pool in
            for (entry, span) in spans.enumerated() {
                let hash = Self.hash(UnsafeBufferPointer(rebasing: pool[span]))
                var index = Int(truncatingIfNeeded: hash) & (capacity - 1)
                while slots[index].entry >= 0 { index = (index + 1) & (capacity - 1) }
                slots[index] = Slot(hash: hash, entry: entry)
            }
        }
        self.pool = pool
        self.spans = spans
        entryValues = values
        entryKeys = keys
        self.slots = slots
    }

    @inlinable
    public subscript(key: String) -> Value? {
        let found: Int? =
            key.utf8.withContiguousStorageIfAvailable { position(of: $0) } ?? Array(key.utf8).withUnsafeBufferPointer { position(of: $0) }
        guard let found else { return nil }
        return entryValues[found]
    }

    /// The entry whose key has exactly these bytes.
    @inlinable
    func position(of bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        let hash = Self.hash(bytes)
        return slots.withUnsafeBufferPointer { slots in
            pool.withUnsafeBufferPointer { pool in
                spans.withUnsafeBufferPointer { spans in
                    let mask = slots.count - 1
                    var index = Int(truncatingIfNeeded: hash) & mask
                    while true {
                        let slot = slots[index]
                        if slot.entry < 0 { return nil }
                        if slot.hash == hash, Self.equal(UnsafeBufferPointer(rebasing: pool[spans[slot.entry]]), bytes) {
                            return slot.entry
                        }
                        index = (index + 1) & mask
                    }
                }
            }
        }
    }

    @inlinable
    static func equal(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        for index in 0..<a.count where a[index] != b[index] { return false }
        return true
    }

    /// Eight bytes a step, each mixed in by a multiply (the golden-ratio constant) and a shift; the length first, so
    /// keys that differ only in trailing zero bytes differ.
    @inlinable
    static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        let multiplier: UInt64 = 0x9E37_79B9_7F4A_7C15
        var hash = (0x243F_6A88_85A3_08D3 ^ UInt64(bytes.count)) &* multiplier
        let raw = UnsafeRawBufferPointer(bytes)
        var offset = 0
        while offset + 8 <= raw.count {
            hash = (hash ^ ByteWords.word(raw, at: offset)) &* multiplier
            hash ^= hash >> 29
            offset += 8
        }
        hash = (hash ^ ByteWords.tail(raw, from: offset)) &* multiplier
        return hash ^ (hash >> 32)
    }

    public var count: Int { entryKeys.count }
    public var isEmpty: Bool { entryKeys.isEmpty }
    /// In the order the keys were first given.
    public var keys: [String] { entryKeys }
    public var values: [Value] { entryValues }
}
