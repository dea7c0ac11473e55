import Synchronization

/// Request ids unique within this process and unlikely to repeat across restarts: a random 32-bit prefix chosen
/// at start, then a counter, in hex. A client's own well-formed `X-Request-Id` is kept instead.
final class RequestIDGenerator: Sendable {
    private let prefix: String
    private let counter = Atomic<UInt64>(0)

    init() {
        prefix = String(UInt32.random(in: 0...UInt32.max), radix: 16)
    }

    func next() -> String {
        let value = counter.add(1, ordering: .relaxed).newValue
        return prefix + "-" + String(value, radix: 16)
    }

    /// Accepts a client-sent id only if it is short and plain, so it can be logged and echoed safely.
    static func isAcceptable(_ id: String) -> Bool {
        let bytes = id.utf8
        return !bytes.isEmpty && bytes.count <= 128 && bytes.allSatisfy { $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") }
    }
}
