/// Finding one byte value in a buffer eight bytes at a time, in plain Swift (this module links no C library).
///
/// Every request head is scanned for its line feeds and checked for carriage returns inside its lines: byte by
/// byte, that was a loop of a compare and a branch per byte, a visible share of a small request's cost.
public enum ByteSearch {
    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highs: UInt64 = 0x8080_8080_8080_8080

    /// The index of the first `byte` in `bytes[start..<end]`, or nil.
    ///
    /// Each 8-byte word is XORed with the byte repeated, so a match becomes a zero byte; `(x - 0x01…) & ~x & 0x80…`
    /// then sets the high bit of every zero byte. A borrow can also set it in a byte *above* a zero byte, never
    /// below one, so the lowest set bit is always the first match (words are read little-endian).
    static func firstIndex(of byte: UInt8, in bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> Int? {
        precondition(start >= 0 && start <= end && end <= bytes.count, "search range outside the buffer")
        guard start < end, let base = bytes.baseAddress else { return nil }
        let raw = UnsafeRawPointer(base)
        let pattern = ones &* UInt64(byte)
        var index = start
        while end - index >= 8 {
            let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)) ^ pattern
            let found = (word &- ones) & ~word & highs
            if found != 0 { return index + found.trailingZeroBitCount / 8 }
            index += 8
        }
        while index < end {
            if base[index] == byte { return index }
            index += 1
        }
        return nil
    }

    /// The index of the first `byte` or `other` in `bytes[start..<end]`, or nil: both words of flags as
    /// `firstIndex(of:in:from:to:)` makes them, ORed. Each one's lowest flag is a true match of its byte (a false
    /// flag only sits above a true one), so the lowest of the two is the first byte that is either.
    static func firstIndex(
        of byte: UInt8, or other: UInt8, in bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int
    ) -> Int? {
        precondition(start >= 0 && start <= end && end <= bytes.count, "search range outside the buffer")
        guard start < end, let base = bytes.baseAddress else { return nil }
        let raw = UnsafeRawPointer(base)
        let pattern = ones &* UInt64(byte)
        let otherPattern = ones &* UInt64(other)
        var index = start
        while end - index >= 8 {
            let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: index, as: UInt64.self))
            let matches = word ^ pattern
            let otherMatches = word ^ otherPattern
            let found = ((matches &- ones) & ~matches | (otherMatches &- ones) & ~otherMatches) & highs
            if found != 0 { return index + found.trailingZeroBitCount / 8 }
            index += 8
        }
        while index < end {
            if base[index] == byte || base[index] == other { return index }
            index += 1
        }
        return nil
    }

    /// Whether the two buffers hold the same bytes, compared a word at a time.
    static func equal(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        guard let left = a.baseAddress, let right = b.baseAddress else { return true }
        let rawLeft = UnsafeRawPointer(left)
        let rawRight = UnsafeRawPointer(right)
        var index = 0
        while a.count - index >= 8 {
            if rawLeft.loadUnaligned(fromByteOffset: index, as: UInt64.self) != rawRight.loadUnaligned(fromByteOffset: index, as: UInt64.self) {
                return false
            }
            index += 8
        }
        while index < a.count {
            if left[index] != right[index] { return false }
            index += 1
        }
        return true
    }

    /// Whether a byte below `limit` (at most 128) occurs in `bytes`: `(word - limit…) & ~word & 0x80…` is non-zero
    /// exactly when some byte of the word is below `limit` (a borrow only starts at such a byte), so a buffer of
    /// visible text is passed over in one test per word.
    static func containsByte(below limit: UInt8, in bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        precondition(limit <= 128, "the word test holds for limits up to 128")
        guard let base = bytes.baseAddress else { return false }
        let raw = UnsafeRawPointer(base)
        let pattern = ones &* UInt64(limit)
        var index = 0
        while bytes.count - index >= 8 {
            let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: index, as: UInt64.self))
            if (word &- pattern) & ~word & highs != 0 { return true }
            index += 8
        }
        while index < bytes.count {
            if base[index] < limit { return true }
            index += 1
        }
        return false
    }

    /// The index of the first byte of `bytes[start..<end]` that is not visible ASCII (0x21...0x7E): a space, a
    /// control byte, DEL or a byte of a multi-byte sequence; nil when every byte is visible.
    ///
    /// Per word, `(word - 0x21…) & ~word` sets the high bit of each byte below 0x21, `word + 0x01…` that of each
    /// 0x7F, and `word` itself that of each byte from 0x80. The borrows and carries these start only run upward,
    /// from a byte that is itself flagged, so the lowest flag is always the first such byte.
    static func firstIndexOfNonVisible(in bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> Int? {
        precondition(start >= 0 && start <= end && end <= bytes.count, "search range outside the buffer")
        guard start < end, let base = bytes.baseAddress else { return nil }
        let raw = UnsafeRawPointer(base)
        let belowVisible = ones &* 0x21
        var index = start
        while end - index >= 8 {
            let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: index, as: UInt64.self))
            let found = (((word &- belowVisible) & ~word) | word | (word &+ ones)) & highs
            if found != 0 { return index + found.trailingZeroBitCount / 8 }
            index += 8
        }
        while index < end {
            if base[index] <= 0x20 || base[index] >= 0x7F { return index }
            index += 1
        }
        return nil
    }

    /// The high bit of exactly each byte of `word` equal to `byte` (`pattern` is `byte` repeated): the low seven
    /// bits are added to 0x7F…, which carries into a byte's high bit unless they are all zero, and cannot carry on
    /// into the next byte. Unlike the borrow test above, no byte is flagged falsely, so every flag can be counted.
    @inline(__always) private static func exactMatches(_ word: UInt64, _ pattern: UInt64) -> UInt64 {
        let lows: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
        let x = word ^ pattern
        return ~(((x & lows) &+ lows) | x | lows)
    }

    /// How many times `byte` occurs in `bytes`, a word at a time.
    public static func count(_ byte: UInt8, in bytes: UnsafeBufferPointer<UInt8>) -> Int {
        guard let base = bytes.baseAddress else { return 0 }
        let raw = UnsafeRawPointer(base)
        let pattern = ones &* UInt64(byte)
        var index = 0
        var total = 0
        while bytes.count - index >= 8 {
            total += exactMatches(UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)), pattern).nonzeroBitCount
            index += 8
        }
        while index < bytes.count {
            if base[index] == byte { total += 1 }
            index += 1
        }
        return total
    }

    /// Each index of `byte` in `bytes`, in order, a word at a time.
    public static func forEachIndex(of byte: UInt8, in bytes: UnsafeBufferPointer<UInt8>, _ body: (Int) -> Void) {
        guard let base = bytes.baseAddress else { return }
        let raw = UnsafeRawPointer(base)
        let pattern = ones &* UInt64(byte)
        var index = 0
        while bytes.count - index >= 8 {
            var found = exactMatches(UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)), pattern)
            while found != 0 {
                body(index + found.trailingZeroBitCount / 8)
                found &= found &- 1
            }
            index += 8
        }
        while index < bytes.count {
            if base[index] == byte { body(index) }
            index += 1
        }
    }

    /// Whether `byte` occurs in `bytes[range]`.
    static func contains(_ byte: UInt8, in bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Bool {
        firstIndex(of: byte, in: bytes, from: range.lowerBound, to: range.upperBound) != nil
    }
}
