#if canImport(Glibc)
import Glibc
#endif

/// Hands out one `String` per distinct byte sequence while a snapshot is decoded.
///
/// A million users' contexts repeat the same few dozen keys (`screen_views`, `appStarted`, a version string).
/// Decoding each afresh validated and, past 15 bytes, allocated a copy per user — the largest share of a cold
/// start — and kept a million copies of each key in memory. Interned, every user's map shares one storage per key.
///
/// Owned by one decoder on one thread. Bounded: after `limit` distinct strings, new ones are made but not kept, so
/// a snapshot of all-distinct keys costs a lookup each and no more memory than before.
struct StringInterner {
    /// Strings longer than this are made directly: long ones are rarely repeated keys, and hashing them costs more.
    static let maximumLength = 64
    /// Open addressing over two parallel arrays; a hash of 0 marks an empty slot (real hashes are made non-zero),
    /// so probing touches only the hashes, never a `String` (no retain per probe).
    private var hashes: [UInt32]
    private var texts: [String]
    private var stored = 0
    private let limit: Int
    /// Keys only: `key(_:)` goes through the table, `string(_:)` never does (see `keys`).
    private let keepsOnlyKeys: Bool

    /// `limit` 0 keeps nothing and allocates no table.
    init(limit: Int = 1 << 16) {
        self.init(limit: limit, keepsOnlyKeys: false)
    }

    private init(limit: Int, keepsOnlyKeys: Bool) {
        self.limit = limit
        self.keepsOnlyKeys = keepsOnlyKeys
        let slots = limit > 0 ? 256 : 0
        hashes = Array(repeating: 0, count: slots)
        texts = Array(repeating: "", count: slots)
    }

    /// A table of keys alone, for decoding users one at a time on first touch (`UserTable`), kept as long as the
    /// table: values (an email as an attribute, an app version) are made afresh and never kept, since an erased
    /// user's values must leave memory with the user, while keys are the names every user writes
    /// (`promo_banner_count`), shared process-wide anyway (`KeyInterner`). Each key found here is neither
    /// validated nor looked up under the process-wide lock again: a first touch decoded some twenty keys, and
    /// making and sharing each was most of its cost.
    static func keys(limit: Int = 4_096) -> StringInterner {
        StringInterner(limit: limit, keepsOnlyKeys: true)
    }

    /// A context key, counter or event name. A keys-only table keeps the process-wide copy (`KeyInterner`), so a
    /// long key decoded here shares its storage with every write's.
    mutating func key(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        guard keepsOnlyKeys else { return string(bytes) }
        return lookUp(bytes) { KeyInterner.intern(String(decoding: $0, as: UTF8.self)) }
    }

    mutating func string(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        guard !keepsOnlyKeys else { return String(decoding: bytes, as: UTF8.self) }
        return lookUp(bytes) { String(decoding: $0, as: UTF8.self) }
    }

    /// Strings kept (tests).
    var count: Int { stored }

    /// Whether a string of exactly these bytes is kept (tests).
    func holds(_ text: String) -> Bool {
        texts.enumerated().contains { hashes[$0.offset] != 0 && $0.element.utf8.elementsEqual(text.utf8) }
    }

    /// The kept string of these bytes, or `make`'s, kept while there is room.
    private mutating func lookUp(_ bytes: UnsafeBufferPointer<UInt8>, _ make: (UnsafeBufferPointer<UInt8>) -> String) -> String {
        guard limit > 0, bytes.count <= Self.maximumLength, let base = bytes.baseAddress else { return make(bytes) }
        // FNV-1a: the keys are short, and any reasonable spread will do for a private table.
        var hash: UInt32 = 2_166_136_261
        for byte in bytes { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        hash |= 1
        let mask = hashes.count - 1
        var index = Int(hash) & mask
        while hashes[index] != 0 {
            if hashes[index] == hash {
                let found = texts[index].utf8.withContiguousStorageIfAvailable { stored in
                    stored.count == bytes.count && memcmp(stored.baseAddress!, base, bytes.count) == 0
                }
                if found == true { return texts[index] }
            }
            index = (index + 1) & mask
        }
        let text = make(bytes)
        guard stored < limit else { return text }
        hashes[index] = hash
        texts[index] = text
        stored += 1
        if stored * 2 > hashes.count { grow() }
        return text
    }

    private mutating func grow() {
        let oldHashes = hashes
        let oldTexts = texts
        hashes = Array(repeating: 0, count: oldHashes.count * 2)
        texts = Array(repeating: "", count: oldHashes.count * 2)
        let mask = hashes.count - 1
        for (slot, hash) in oldHashes.enumerated() where hash != 0 {
            var index = Int(hash) & mask
            while hashes[index] != 0 { index = (index + 1) & mask }
            hashes[index] = hash
            texts[index] = oldTexts[slot]
        }
    }
}
