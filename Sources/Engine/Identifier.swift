/// User ids: 1–256 bytes of UTF-8, no control characters (README, "Users and keys"). Keys (counter, event, flag,
/// attribute and segment names) have the same shape, but their length limit is configurable and checked by the store.
public enum Identifier {
    public static func isValid(_ text: String) -> Bool {
        text.utf8.count <= 256 && isValidKey(text)
    }

    /// Control characters are Unicode's Cc: C0, DEL and C1 (U+0080–U+009F). Checked on the UTF-8 bytes in place,
    /// two ids per write: walking the unicode scalars cost about 250 instructions an id.
    public static func isValidKey(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            guard !bytes.isEmpty else { return false }
            // Eight bytes a step while they are all printable ASCII (0x20...0x7E), as ids nearly always are:
            // `(word - 0x20…) & ~word` flags a byte below 0x20, `word + 0x01…` a 0x7F, `word` itself a byte from
            // 0x80. The first word that is not passes the rest to the byte loop, which knows about C1.
            let raw = UnsafeRawPointer(bytes.baseAddress!)
            let ones: UInt64 = 0x0101_0101_0101_0101
            var start = 0
            while bytes.count - start >= 8 {
                let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: start, as: UInt64.self))
                guard (((word &- ones &* 0x20) & ~word) | word | (word &+ ones)) & (ones &* 0x80) == 0 else { break }
                start += 8
            }
            for index in start..<bytes.count {
                let byte = bytes[index]
                if byte < 0x20 || byte == 0x7F { return false }
                // C1 is 0xC2 0x80–0x9F: a valid string holds no other encoding of U+0080–U+009F (no overlong form).
                if byte == 0xC2, index + 1 < bytes.count, bytes[index + 1] < 0xA0 { return false }
            }
            return true
        }
    }
}
