/// Byte classes from RFC 9110 §5.6 and RFC 9112, as lookup helpers for the parser.
enum ASCII {
    static let cr: UInt8 = 13
    static let lf: UInt8 = 10
    static let space: UInt8 = 32
    static let tab: UInt8 = 9
    static let colon: UInt8 = 58

    /// tchar = "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." / "^" / "_" / "`" / "|" / "~" / DIGIT / ALPHA
    /// (RFC 9110 §5.6.2), as one bit per byte in two constant masks (bytes 0–63, 64–127). A table behind a
    /// `static let` was a lazily initialized global: a `swift_once` check on every byte of every field name.
    @inline(__always) static func isToken(_ byte: UInt8) -> Bool {
        let low: UInt64 = 0x03FF_6CFA_0000_0000
        let high: UInt64 = 0x57FF_FFFF_C7FF_FFFE
        return byte < 64 ? (low >> byte) & 1 == 1 : byte < 128 ? (high >> (byte &- 64)) & 1 == 1 : false
    }

    /// field-vchar / SP / HTAB / obs-text: everything but CTLs and DEL.
    @inline(__always) static func isFieldValueByte(_ byte: UInt8) -> Bool {
        byte == tab || (byte >= 0x20 && byte != 0x7F)
    }

    /// Visible ASCII allowed in a request target (no spaces, no controls, no obs-text).
    @inline(__always) static func isTargetByte(_ byte: UInt8) -> Bool { byte > 0x20 && byte < 0x7F }

    @inline(__always) static func lower(_ byte: UInt8) -> UInt8 {
        byte >= 65 && byte <= 90 ? byte | 0x20 : byte
    }

    static func equalsIgnoringCase<A: Collection, B: Collection>(_ a: A, _ b: B) -> Bool
    where A.Element == UInt8, B.Element == UInt8 {
        guard a.count == b.count else { return false }
        return zip(a, b).allSatisfy { lower($0) == lower($1) }
    }

    /// The same on contiguous bytes. Names compared are nearly always spelled in the same case, so eight bytes are
    /// compared at a time and only a word that differs is folded byte by byte: field names are compared several
    /// times a request (framing fields, known names, managed response fields).
    static func equalsIgnoringCase(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        guard let left = a.baseAddress, let right = b.baseAddress else { return true }
        var index = 0
        while a.count - index >= 8 {
            let x = UnsafeRawPointer(left + index).loadUnaligned(as: UInt64.self)
            let y = UnsafeRawPointer(right + index).loadUnaligned(as: UInt64.self)
            if x != y {
                for offset in index..<index + 8 where lower(left[offset]) != lower(right[offset]) { return false }
            }
            index += 8
        }
        while index < a.count {
            if lower(left[index]) != lower(right[index]) { return false }
            index += 1
        }
        return true
    }

    static func hexValue(_ byte: UInt8) -> Int? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return Int(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return Int(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return Int(byte - UInt8(ascii: "A") + 10)
        default: return nil
        }
    }
}
