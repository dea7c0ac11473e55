import Rules

/// Reads what `BinaryWriter` wrote; every read is bounds-checked and throws `.truncated` or `.malformed`.
struct BinaryReader {
    enum Failure: Error, Equatable {
        case truncated
        case malformed
    }

    let bytes: [UInt8]
    var offset: Int
    let end: Int

    /// `start` and `end` are clamped to the bytes, so a bad length from the data can never index outside them.
    init(_ bytes: [UInt8], from start: Int = 0, to end: Int? = nil) {
        self.bytes = bytes
        self.end = max(0, min(end ?? bytes.count, bytes.count))
        offset = max(0, min(start, self.end))
    }

    var isAtEnd: Bool { offset >= end }

    mutating func byte() throws(Failure) -> UInt8 {
        guard offset < end else { throw .truncated }
        defer { offset += 1 }
        return bytes[offset]
    }

    @inline(__always)
    mutating func unsigned() throws(Failure) -> UInt64 {
        // Most varints here (lengths, counts, small numbers) are one byte: read in line, the rest out of line.
        if offset < end, bytes[offset] < 0x80 {
            defer { offset += 1 }
            return UInt64(bytes[offset])
        }
        return try unsignedSpanningBytes()
    }

    @inline(never)
    private mutating func unsignedSpanningBytes() throws(Failure) -> UInt64 {
        // With eleven bytes left, the loop below stops (done or malformed) before it could run past them: read
        // without a bounds check per byte (a date is a seven-byte varint, two in every replayed record).
        // Fails as the loop below does, having consumed the same bytes.
        if end - offset >= 11 {
            let start = offset
            let (value, length) = bytes.withUnsafeBufferPointer { buffer -> (UInt64?, Int) in
                var result: UInt64 = 0
                var shift: UInt64 = 0
                var index = start
                while true {
                    let next = buffer[index]
                    index += 1
                    guard shift < 64 else { return (nil, index - start) }
                    result |= UInt64(next & 0x7F) << shift
                    if next & 0x80 == 0 { return (result, index - start) }
                    shift += 7
                }
            }
            offset += length
            guard let value else { throw .malformed }
            return value
        }
        var position = offset
        defer { offset = position }
        return try bytes.withUnsafeBufferPointer { buffer throws(Failure) in try Self.varint(in: buffer, at: &position, end: end) }
    }

    /// A varint at `offset` (moved past what was read, failure or not): running out is `.truncated`, an eleventh
    /// byte (the shift would pass 63) `.malformed`. Shared with `ContextCodec.check`'s walk, which must fail
    /// exactly where this reader does.
    @inline(__always)
    static func varint(in buffer: UnsafeBufferPointer<UInt8>, at offset: inout Int, end: Int) throws(Failure) -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard offset < end else { throw .truncated }
            let next = buffer[offset]
            offset += 1
            guard shift < 64 else { throw .malformed }
            result |= UInt64(next & 0x7F) << shift
            if next & 0x80 == 0 { return result }
            shift += 7
        }
    }

    mutating func signed() throws(Failure) -> Int64 {
        let raw = try unsigned()
        return Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1)))
    }

    mutating func int() throws(Failure) -> Int { Int(try signed()) }
    mutating func instant() throws(Failure) -> Instant { Instant(milliseconds: try signed()) }

    /// A length or element count: never more than the bytes left, so nothing is allocated for a count the data
    /// cannot hold (every element takes at least one byte).
    @inline(__always)
    mutating func count() throws(Failure) -> Int {
        let value = try unsigned()
        guard offset <= end, value <= UInt64(end - offset) else { throw .truncated }
        return Int(value)
    }

    /// Strings were validated UTF-8 when they were written, and every record's CRC has been checked before it is
    /// decoded, so decoding skips a second validation pass (invalid bytes would become U+FFFD, never a crash).
    mutating func string() throws(Failure) -> String {
        let length = try count()
        let text = bytes.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[offset..<(offset + length)]), as: UTF8.self) }
        offset += length
        return text
    }

    mutating func optionalString() throws(Failure) -> String? {
        try byte() == 1 ? try string() : nil
    }

    /// `string()`, shared through `interner` with every earlier string of the same bytes.
    mutating func string(interning interner: inout StringInterner) throws(Failure) -> String {
        let length = try count()
        let text = bytes.withUnsafeBufferPointer { interner.string(UnsafeBufferPointer(rebasing: $0[offset..<(offset + length)])) }
        offset += length
        return text
    }

    /// A string that names something (a counter, an event, a flag): `StringInterner.key(_:)`.
    mutating func key(interning interner: inout StringInterner) throws(Failure) -> String {
        let length = try count()
        let text = bytes.withUnsafeBufferPointer { interner.key(UnsafeBufferPointer(rebasing: $0[offset..<(offset + length)])) }
        offset += length
        return text
    }

    mutating func optionalString(interning interner: inout StringInterner) throws(Failure) -> String? {
        try byte() == 1 ? try string(interning: &interner) : nil
    }

    mutating func json() throws(Failure) -> JSONValue {
        let length = try count()
        defer { offset += length }
        do {
            return try JSONParser(maxDepth: 64, maxBytes: Int.max).parse(Array(bytes[offset..<(offset + length)]))
        } catch {
            throw .malformed
        }
    }

    /// `json()`, with a plain string value (no escapes: what `JSONWriter` writes for text without quotes,
    /// backslashes or control characters) taken from `interner` rather than parsed: attribute values such as a plan
    /// or a country repeat across users as keys do.
    mutating func json(interning interner: inout StringInterner) throws(Failure) -> JSONValue {
        let length = try count()
        let start = offset
        if isPlainString(from: start, length: length) {
            offset += length
            return .string(bytes.withUnsafeBufferPointer { interner.string(UnsafeBufferPointer(rebasing: $0[(start + 1)..<(start + length - 1)])) })
        }
        // Not a plain string: parse it, from the length read above.
        defer { offset = start + length }
        do {
            return try JSONParser(maxDepth: 64, maxBytes: Int.max).parse(Array(bytes[start..<(start + length)]))
        } catch {
            throw .malformed
        }
    }

    /// A quoted string with nothing to unescape: no quote, backslash or control character inside.
    private func isPlainString(from start: Int, length: Int) -> Bool {
        bytes.withUnsafeBufferPointer { Self.isPlainString(UnsafeBufferPointer(rebasing: $0[start..<(start + length)])) }
    }

    /// A JSON value that is a quoted string with nothing to unescape (`ContextCodec.check` walks them in place).
    static func isPlainString(_ value: UnsafeBufferPointer<UInt8>) -> Bool {
        let quote = UInt8(ascii: "\"")
        guard value.count >= 2, value[0] == quote, value[value.count - 1] == quote else { return false }
        return !value[1..<(value.count - 1)].contains { $0 < 0x20 || $0 == quote || $0 == UInt8(ascii: "\\") || $0 == 0x7F }
    }

    mutating func fixed32() throws(Failure) -> UInt32 {
        guard offset + 4 <= end else { throw .truncated }
        defer { offset += 4 }
        // One unaligned load, checked once above (every log record's header is four of these).
        let start = offset
        return UInt32(littleEndian: bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: start, as: UInt32.self) })
    }

    mutating func fixed64() throws(Failure) -> UInt64 {
        let low = UInt64(try fixed32())
        let high = UInt64(try fixed32())
        return low | high << 32
    }
}
