/// Bytes read as little-endian 64-bit words, for the hashes that take eight bytes a step (a rule set's key
/// tables, entity tags): the same words on every platform, so a hash that must be stable across nodes is.
public enum ByteWords {
    /// The word at `offset` (eight bytes from it must be there).
    @inlinable
    public static func word(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> UInt64 {
        UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    /// The bytes from `offset` to the end, fewer than eight, as one word: the first in the lowest byte, the rest
    /// zero.
    @inlinable
    public static func tail(_ bytes: UnsafeRawBufferPointer, from offset: Int) -> UInt64 {
        var tail: UInt64 = 0
        var shift: UInt64 = 0
        var index = offset
        while index < bytes.count {
            tail |= UInt64(bytes[index]) << shift
            shift += 8
            index += 1
        }
        return tail
    }
}
