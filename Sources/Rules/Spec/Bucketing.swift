/// Deterministic bucketing shared with flagd's `fractional` (docs/rules.md, "Bucketing"): MurmurHash3 x86 32-bit, seed
/// 0, over the UTF-8 bytes, then `(UInt64(h) * W) >> 32` with integer math only, so every client can reproduce it.
public enum Bucketing {
    public static func murmur3(_ text: String, seed: UInt32 = 0) -> UInt32 {
        var copy = text
        return copy.withUTF8 { murmur3($0, seed: seed) }
    }

    public static func murmur3(_ bytes: UnsafeBufferPointer<UInt8>, seed: UInt32 = 0) -> UInt32 {
        let c1: UInt32 = 0xcc9e_2d51
        let c2: UInt32 = 0x1b87_3593
        var hash = seed
        let blocks = bytes.count / 4
        for block in 0..<blocks {
            let base = block * 4
            var k = UInt32(bytes[base]) | UInt32(bytes[base + 1]) << 8 | UInt32(bytes[base + 2]) << 16 | UInt32(bytes[base + 3]) << 24
            k = k &* c1
            k = (k << 15) | (k >> 17)
            k = k &* c2
            hash ^= k
            hash = (hash << 13) | (hash >> 19)
            hash = hash &* 5 &+ 0xe654_6b64
        }
        let tail = blocks * 4
        var k: UInt32 = 0
        switch bytes.count & 3 {
        case 3:
            k ^= UInt32(bytes[tail + 2]) << 16
            fallthrough
        case 2:
            k ^= UInt32(bytes[tail + 1]) << 8
            fallthrough
        case 1:
            k ^= UInt32(bytes[tail])
            k = k &* c1
            k = (k << 15) | (k >> 17)
            k = k &* c2
            hash ^= k
        default:
            break
        }
        hash ^= UInt32(truncatingIfNeeded: bytes.count)
        hash ^= hash >> 16
        hash = hash &* 0x85eb_ca6b
        hash ^= hash >> 13
        hash = hash &* 0xc2b2_ae35
        hash ^= hash >> 16
        return hash
    }

    /// The bucket in `0..<totalWeight` for a bucketing string. The product is taken at full width, so any total is
    /// exact; below 2^32 (every total a rule file can write with ordinary weights) it is `(h * W) >> 32` as documented.
    public static func bucket(_ text: String, totalWeight: UInt64) -> UInt64 {
        let product = UInt64(murmur3(text)).multipliedFullWidth(by: totalWeight)
        return product.high << 32 | product.low >> 32
    }

    /// `rollout`: holds when the bucket over 10 000 of `salt/flagKey/value` is below `basisPoints`
    /// (percent × 100).
    public static func inRollout(salt: String, flagKey: String, value: String, basisPoints: Int) -> Bool {
        bucket(salt + "/" + flagKey + "/" + value, totalWeight: 10_000) < UInt64(max(0, basisPoints))
    }

    /// A weighted choice: walks cumulative integer weights and returns the index of the first whose end exceeds
    /// the bucket.
    /// Non-positive weights count as zero; a total past UInt64 (which validation refuses) saturates rather than traps.
    public static func pick(_ text: String, weights: [Int]) -> Int {
        var total: UInt64 = 0
        for weight in weights where weight > 0 {
            let (sum, overflow) = total.addingReportingOverflow(UInt64(weight))
            total = overflow ? .max : sum
        }
        guard total > 0 else { return 0 }
        let bucket = bucket(text, totalWeight: total)
        var end: UInt64 = 0
        for (index, weight) in weights.enumerated() where weight > 0 {
            let (sum, overflow) = end.addingReportingOverflow(UInt64(weight))
            end = overflow ? .max : sum
            if bucket < end { return index }
        }
        return weights.count - 1
    }
}
