import Synchronization

/// Request ids unique within this process and unlikely to repeat across restarts: a random 32-bit prefix chosen
/// at start, then a counter, in hex. A client's own well-formed `X-Request-Id` is kept instead.
final class RequestIDGenerator: Sendable {
    private let prefix: [UInt8]
    private let counter = Atomic<UInt64>(0)
    private static let hexDigits = Array("0123456789abcdef".utf8)

    init() {
        prefix = Array(String(UInt32.random(in: 0...UInt32.max), radix: 16).utf8)
    }

    /// `prefix-counter` in hex, assembled on the stack: every response carries one, and concatenating `String`s
    /// made three of them per request.
    func next() -> String {
        let value = counter.add(1, ordering: .relaxed).newValue
        var digits = 1
        while digits < 16, value >> (4 * UInt64(digits)) != 0 { digits += 1 }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 8 + 1 + 16) { text in
            var length = 0
            for byte in prefix {
                text[length] = byte
                length += 1
            }
            text[length] = UInt8(ascii: "-")
            length += 1
            for position in stride(from: digits - 1, through: 0, by: -1) {
                text[length] = Self.hexDigits[Int((value >> (4 * UInt64(position))) & 0xF)]
                length += 1
            }
            return String(decoding: UnsafeBufferPointer(rebasing: text[0..<length]), as: UTF8.self)
        }
    }

    /// Accepts a client-sent id only if it is short and plain, so it can be logged and echoed safely.
    static func isAcceptable(_ id: String) -> Bool {
        let bytes = id.utf8
        return !bytes.isEmpty && bytes.count <= 128 && bytes.allSatisfy { $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") }
    }
}
