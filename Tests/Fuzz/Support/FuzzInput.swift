import Glibc

/// `FUZZ_DUMP=1` prints what a structure-aware target built from its input (a rule document, batches), to turn a
/// reproducer into a readable regression test.
let dumpInputs = getenv("FUZZ_DUMP") != nil

/// Written to stderr, unbuffered, so that the dump is there even when the input then crashes the target.
func dumpLine(_ text: String) {
    let line = Array((text + "\n").utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
}

/// The fuzzer's bytes read as a stream of decisions. Every read succeeds: an exhausted input answers zeros, so a
/// generator driven by it always terminates (lists come out empty, recursion takes its base case).
struct FuzzInput {
    let bytes: [UInt8]
    var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    init(_ data: UnsafePointer<UInt8>, _ size: Int) {
        bytes = size > 0 ? Array(UnsafeBufferPointer(start: data, count: size)) : []
    }

    var isExhausted: Bool { index >= bytes.count }
    var remaining: [UInt8] { index < bytes.count ? Array(bytes[index...]) : [] }

    mutating func byte() -> UInt8 {
        guard index < bytes.count else { return 0 }
        defer { index += 1 }
        return bytes[index]
    }

    mutating func bool() -> Bool { byte() & 1 == 1 }

    /// A value in `range`; ranges wider than 16 bits draw more bytes.
    mutating func int(_ range: ClosedRange<Int>) -> Int {
        let width = UInt64(bitPattern: Int64(range.upperBound) &- Int64(range.lowerBound))
        if width == 0 { return range.lowerBound }
        var raw: UInt64 = 0
        var span = width
        repeat {
            raw = raw << 8 | UInt64(byte())
            span >>= 8
        } while span > 0
        let offset = width == UInt64.max ? raw : raw % (width + 1)
        return Int(bitPattern: UInt(bitPattern: range.lowerBound) &+ UInt(offset))
    }

    mutating func uint64() -> UInt64 {
        var value: UInt64 = 0
        for _ in 0..<8 { value = value << 8 | UInt64(byte()) }
        return value
    }

    mutating func pick<T>(_ options: [T]) -> T { options[int(0...(options.count - 1))] }

    mutating func take(_ count: Int) -> [UInt8] {
        let end = min(bytes.count, index + max(0, count))
        defer { index = max(index, end) }
        return index < end ? Array(bytes[index..<end]) : []
    }

    /// A short key: usually from a small alphabet so that names collide (a rule reads what a batch wrote), sometimes
    /// raw bytes (invalid UTF-8 becomes U+FFFD, as a client's bytes would after decoding), sometimes empty.
    mutating func key() -> String {
        switch byte() % 8 {
        case 0: return ""
        case 1: return String(decoding: take(int(0...12)), as: UTF8.self)
        case 2: return pick(["caf\u{E9}", "cafe\u{301}", "\u{1F600}", "a.b", "$flagd", "targetingKey", "0", "-1"])
        default: return pick(["a", "b", "c", "vip", "plan", "email", "score", "views", "launch", "promo"])
        }
    }

    /// A repeat count for a long string: usually short or at a byte limit's edge (256 for keys, 16 KiB for
    /// attribute values), the whole range only one time in eight. Every character of a long string is generated,
    /// written, parsed and compared on each execution: uniform lengths up to `limit` made the structure-aware
    /// targets several times slower without reaching more code.
    mutating func length(upTo limit: Int) -> Int {
        switch byte() % 8 {
        case 0: return int(0...limit)
        case 1: return min(limit, pick([255, 256, 257, 1024, 4096, 16_383, 16_384, 16_385]))
        default: return int(0...32)
        }
    }

    /// An integer, biased towards the edges where arithmetic breaks.
    mutating func edgeInt() -> Int {
        switch byte() % 8 {
        case 0: return pick([0, 1, -1, 2, 3, 10, 100])
        case 1: return pick([Int.max, Int.min, Int.max - 1, Int.min + 1, Int(Int32.max), Int(Int32.min)])
        case 2: return pick([1 << 53, -(1 << 53), (1 << 53) + 1, 1 << 62, -(1 << 62)])
        case 3: return Int(bitPattern: UInt(uint64()))
        default: return int(-1000...1000)
        }
    }

    /// A double, biased towards values that break conversions.
    mutating func edgeDouble() -> Double {
        anyEdgeDouble()
    }

    private mutating func anyEdgeDouble() -> Double {
        switch byte() % 6 {
        case 0: return pick([1e300, -1e300, 1e19, -1e19, 9.3e18, -9.3e18, 1.7976931348623157e308, Double.leastNonzeroMagnitude, -0.0, 0.5, -0.5])
        case 1: return Double(bitPattern: uint64())
        case 2: return Double(edgeInt())
        case 3: return Double(int(-1000...1000)) / 8
        default: return Double(int(0...100))
        }
    }
}
