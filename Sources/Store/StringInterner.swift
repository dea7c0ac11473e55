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
    /// Without a table of its own, keys still come from the process-wide `KeyInterner`, as every write's do.
    private let sharesKeys: Bool

    /// `limit` 0 keeps nothing and allocates no table.
    init(limit: Int = 1 << 16) {
        self.init(limit: limit, sharesKeys: false)
    }

    private init(limit: Int, sharesKeys: Bool) {
        self.limit = limit
        self.sharesKeys = sharesKeys
        let slots = limit > 0 ? 256 : 0
        hashes = Array(repeating: 0, count: slots)
        texts = Array(repeating: "", count: slots)
    }

    /// Keeps no table, but takes keys (`key(_:)`) from `KeyInterner`: for decoding one user on first touch. Its
    /// values must not outlive it (an erased user's email kept in a table would stay in memory), while its keys are
    /// the ones every user writes (`promo_banner_count`), which a write would have shared the same way; a million
    /// users each holding a copy of every key past 15 bytes cost about 250 bytes a user.
    static let keysOnly = StringInterner(limit: 0, sharesKeys: true)

    /// A context key, counter or event name: from the table like any string, or, with no table, the process-wide
    /// copy when sharing keys.
    mutating func key(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        guard limit == 0, sharesKeys else { return string(bytes) }
        return KeyInterner.intern(String(decoding: bytes, as: UTF8.self))
    }

    mutating func string(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        guard limit > 0, bytes.count <= Self.maximumLength, let base = bytes.baseAddress else { return String(decoding: bytes, as: UTF8.self) }
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
        let text = String(decoding: bytes, as: UTF8.self)
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
