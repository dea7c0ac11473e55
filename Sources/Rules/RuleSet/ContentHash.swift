/// FNV-1a 64-bit as 16 hex digits: stable across runs and platforms (unlike `Hasher`), for versions and ETags.
public enum ContentHash {
    public static func hex(_ bytes: [UInt8]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        let text = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - text.count) + text
    }
}
