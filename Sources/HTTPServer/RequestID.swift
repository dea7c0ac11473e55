/// A request's `X-Request-Id`: a client's own (`RequestIDGenerator.isAcceptable`), or the process's prefix and a
/// counter, spelled in hex only when something reads it. Every response carries one, but as bytes in its head:
/// made a `String` for each request, it cost an allocation-free but validated string build of some 400
/// instructions, where writing its digits into the head costs a tenth of that.
public struct RequestID: Sendable, Equatable {
    enum Value: Sendable, Equatable {
        case client(String)
        /// `prefix` is the generator's hex digits, shared by every id it numbers.
        case numbered(prefix: RequestIDGenerator.Prefix, counter: UInt64)
    }

    let value: Value

    /// A client's id, or any text a caller already has (tests, tools).
    public init(_ text: String) {
        value = .client(text)
    }

    init(prefix: RequestIDGenerator.Prefix, counter: UInt64) {
        value = .numbered(prefix: prefix, counter: counter)
    }

    /// Its longest spelling: 8 hex digits, `-`, 16 hex digits (a client's is at most 128 bytes).
    static let maxNumberedBytes = 8 + 1 + 16

    /// The id as text.
    public var text: String {
        switch value {
        case .client(let text): text
        case .numbered: withBytes { String(decoding: $0, as: UTF8.self) }
        }
    }

    /// Lends the id's bytes: a client's in place, a numbered one spelled on the stack.
    public func withBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        switch value {
        case .client(var text):
            return text.withUTF8(body)
        case .numbered(let prefix, let counter):
            return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.maxNumberedBytes) { buffer in
                var length = prefix.write(into: buffer)
                buffer[length] = UInt8(ascii: "-")
                length += 1
                length += Self.writeHex(counter, into: UnsafeMutableBufferPointer(rebasing: buffer[length...]))
                return body(UnsafeBufferPointer(rebasing: buffer[..<length]))
            }
        }
    }

    /// Lowercase hex without leading zeros; returns the digits written (at most 16). Written from the last digit
    /// back, each one a shift, a mask and a table read.
    static func writeHex(_ value: UInt64, into buffer: UnsafeMutableBufferPointer<UInt8>) -> Int {
        let digits = max(1, (64 - value.leadingZeroBitCount + 3) / 4)
        precondition(buffer.count >= digits, "no room for the hex digits")
        var rest = value
        var position = digits
        while position > 0 {
            position -= 1
            buffer[position] = hexDigits.utf8Start[Int(truncatingIfNeeded: rest & 0xF)]
            rest >>= 4
        }
        return digits
    }

    private static let hexDigits: StaticString = "0123456789abcdef"

    public static func == (lhs: RequestID, rhs: RequestID) -> Bool { lhs.text == rhs.text }
}
