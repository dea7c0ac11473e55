import Synchronization

/// Request ids unique within this process and unlikely to repeat across restarts: a random 32-bit prefix chosen
/// at start, then a counter, in hex. A client's own well-formed `X-Request-Id` is kept instead.
final class RequestIDGenerator: Sendable {
    /// The prefix's hex digits (at most 8), spelled once and kept packed in a word: an id copies them with one
    /// store.
    struct Prefix: Sendable, Equatable {
        let digits: UInt64
        let count: Int

        init(_ value: UInt32) {
            var packed: UInt64 = 0
            let count = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 8) { buffer in
                let count = RequestID.writeHex(UInt64(value), into: buffer)
                for index in 0..<count { packed |= UInt64(buffer[index]) << (8 * UInt64(index)) }
                return count
            }
            digits = packed
            self.count = count
        }

        /// Writes the digits at the start of `buffer` (which has room for 8 bytes); returns how many.
        func write(into buffer: UnsafeMutableBufferPointer<UInt8>) -> Int {
            precondition(buffer.count >= 8, "room for a whole word")
            UnsafeMutableRawPointer(buffer.baseAddress!).storeBytes(of: digits.littleEndian, as: UInt64.self)
            return count
        }
    }

    let prefix: Prefix
    private let counter = Atomic<UInt64>(0)

    init(prefix: UInt32 = UInt32.random(in: 0...UInt32.max)) {
        self.prefix = Prefix(prefix)
    }

    /// `prefix-counter`, numbered now and spelled when read (`RequestID`).
    func next() -> RequestID {
        RequestID(prefix: prefix, counter: counter.add(1, ordering: .relaxed).newValue)
    }

    /// Accepts a client-sent id only if it is short and plain, so it can be logged and echoed safely.
    static func isAcceptable(_ id: String) -> Bool {
        let bytes = id.utf8
        return !bytes.isEmpty && bytes.count <= 128 && bytes.allSatisfy { $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") }
    }
}
