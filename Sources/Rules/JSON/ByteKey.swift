import Foundation

/// A string compared, ordered and hashed by its UTF-8 bytes.
///
/// Swift's `String` equality is canonical equivalence: NFC `café` (`63 61 66 c3 a9`) equals NFD `café`
/// (`63 61 66 65 cc 81`). specd's ids and keys are bytes everywhere (README, "Users and keys"): two spellings that
/// render alike are two users, two counters, two segments — in shards, maps, the log and snapshots alike. Any map or
/// set keyed by a client-supplied string uses `ByteKey` (or compares `utf8` views), never `String` equality.
public struct ByteKey: Hashable, Comparable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    public let string: String

    @inlinable
    public init(_ string: String) { self.string = string }

    public init(stringLiteral value: String) { self.string = value }

    public var description: String { string }

    @inlinable
    public static func == (lhs: ByteKey, rhs: ByteKey) -> Bool { lhs.string.bytesEqual(rhs.string) }

    @inlinable
    public static func < (lhs: ByteKey, rhs: ByteKey) -> Bool { lhs.string.utf8.lexicographicallyPrecedes(rhs.string.utf8) }

    @inlinable
    public func hash(into hasher: inout Hasher) {
        var string = string
        string.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        hasher.combine(0xFF as UInt8) // a terminator no UTF-8 byte equals, so ("ab","c") and ("a","bc") differ in tuples
    }
}

extension String {
    /// Byte equality of the UTF-8 encodings (no Unicode normalization): the comparison of ids and keys.
    @inlinable
    public func bytesEqual(_ other: String) -> Bool { sameUTF8(self, other) }
}

/// Byte equality of two strings' UTF-8 (`String.bytesEqual`), fast: the users table and every context map compare
/// keys with it. Comparing the UTF-8 views element by element cost 580 instructions for an 11-byte user id, 8 % of
/// a replay; two equal representations (a short string's inline bytes, or one shared storage, as interned keys
/// are) are the same bytes at once, and the rest is one `memcmp` over contiguous storage.
@inlinable @inline(__always)
func sameUTF8(_ a: String, _ b: String) -> Bool {
    // A 64-bit `String` is two words (a constant test, folded away); elsewhere, straight to the bytes.
    if MemoryLayout<String>.size == 16,
        unsafeBitCast(a, to: (UInt64, UInt64).self) == unsafeBitCast(b, to: (UInt64, UInt64).self)
    {
        return true
    }
    let length = a.utf8.count
    guard length == b.utf8.count else { return false }
    let compared = a.utf8.withContiguousStorageIfAvailable { left in
        b.utf8.withContiguousStorageIfAvailable { right in length == 0 || memcmp(left.baseAddress!, right.baseAddress!, length) == 0 }
    }
    if let compared, let equal = compared { return equal }
    return a.utf8.elementsEqual(b.utf8)
}
