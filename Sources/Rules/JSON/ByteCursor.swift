/// Writes bytes through a pointer into space sized beforehand, for answers whose largest size is known before they
/// are written. Appending to an `Array` checks its uniqueness and capacity on every call, about a hundred
/// instructions for a short run, and a donation's answer made twenty such appends.
///
/// Every write checks the space it needs against the end (`precondition`, kept in release builds): a bound that
/// was computed wrong stops the process instead of writing past the space. Writers that take a cursor say how many
/// bytes they write at most; callers add those bounds up.
public struct ByteCursor {
    /// Where the next byte goes. Settable so the cursor's writers inline into other modules' code.
    public var position: UnsafeMutablePointer<UInt8>
    /// One past the last byte that may be written.
    public let end: UnsafeMutablePointer<UInt8>

    public init(_ space: UnsafeMutableBufferPointer<UInt8>) {
        // An empty buffer may have no base address; a cursor over it can write nothing.
        let start = space.baseAddress ?? UnsafeMutablePointer(bitPattern: MemoryLayout<UInt8>.alignment)!
        position = start
        end = start + space.count
    }

    /// Room left.
    @inlinable @inline(__always) public var remaining: Int { end - position }

    @inlinable @inline(__always) public mutating func write(_ byte: UInt8) {
        precondition(position < end, "ByteCursor: written past its space")
        position.initialize(to: byte)
        position += 1
    }

    /// Fixed text (punctuation, member names) in one copy.
    @inlinable @inline(__always) public mutating func write(_ text: StaticString) {
        write(UnsafeRawPointer(text.utf8Start), count: text.utf8CodeUnitCount)
    }

    @inlinable @inline(__always) public mutating func write(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress else { return }
        write(UnsafeRawPointer(base), count: bytes.count)
    }

    @inlinable @inline(__always) public mutating func write(_ bytes: UnsafeRawPointer, count: Int) {
        precondition(count <= remaining, "ByteCursor: written past its space")
        UnsafeMutableRawPointer(position).copyMemory(from: bytes, byteCount: count)
        position += count
    }

    /// Lets `body` write exactly `count` bytes at the cursor, then moves past them.
    @inlinable @inline(__always) public mutating func advance(by count: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Void) {
        precondition(count >= 0 && count <= remaining, "ByteCursor: written past its space")
        body(position)
        position += count
    }

    /// The most bytes `writeDecimal` writes: a UInt64 has at most 20 digits, an Int a sign and 19.
    public static let decimalByteBound = 20

    /// A signed decimal integer: `-` and the magnitude's digits when negative.
    public mutating func writeDecimal(_ value: Int) {
        if value < 0 { write(UInt8(ascii: "-")) }
        writeDecimal(UInt64(value.magnitude))
    }

    /// A decimal integer's digits, most significant first.
    public mutating func writeDecimal(_ value: UInt64) {
        var digits = 1
        var rest = value
        while rest >= 10 {
            rest /= 10
            digits += 1
        }
        precondition(digits <= remaining, "ByteCursor: written past its space")
        rest = value
        var index = digits - 1
        while index >= 0 {
            position[index] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest % 10)
            rest /= 10
            index -= 1
        }
        position += digits
    }

    /// A new array of what `body` writes through a cursor over `capacity` bytes, with room for `extra` more.
    /// The bytes are written on the stack and copied once: an array made uninitialized went through the standard
    /// library's unspecialized allocation, three times the cost of a reserved one.
    public static func bytes(capacity: Int, extra: Int = 0, _ body: (inout ByteCursor) -> Void) -> [UInt8] {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { space in
            var cursor = ByteCursor(space)
            body(&cursor)
            let written = space.baseAddress.map { cursor.position - $0 } ?? 0
            var out: [UInt8] = []
            out.reserveCapacity(written + extra)
            out.append(contentsOf: UnsafeBufferPointer(start: space.baseAddress, count: written))
            return out
        }
    }
}
