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
    public func bytesEqual(_ other: String) -> Bool {
        if utf8.count != other.utf8.count { return false }
        return utf8.elementsEqual(other.utf8)
    }
}
