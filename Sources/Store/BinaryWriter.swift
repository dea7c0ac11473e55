import Rules

/// Appends a compact binary encoding: LEB128 varints (zigzag for signed), length-prefixed UTF-8 strings.
///
/// Small writes gather in `staging`, a fixed buffer held in the writer, and reach `bytes` in one copy when it fills
/// or when `bytes` is read: appended to the array byte by byte, each append checked the buffer's uniqueness and
/// capacity (callgrind: `unsigned` 396 instructions a donation's log record, its strings' appends another 280).
struct BinaryWriter {
    private var storage: [UInt8] = []
    private var staging: Staging = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    private var stagedCount = 0

    /// Room for the usual log record whole (its header, a user, an instant, an action or two): one copy a record.
    private typealias Staging = (
        UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
        UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64
    )
    private static var stagingSize: Int { MemoryLayout<Staging>.size }
    /// The most bytes a varint takes.
    private static var varintSize: Int { 10 }

    /// Everything written so far. Read or changed, it takes what is staged first; set, it replaces all of it.
    var bytes: [UInt8] {
        mutating get {
            flush()
            return storage
        }
        set {
            stagedCount = 0
            storage = newValue
        }
        _modify {
            flush()
            yield &storage
        }
    }

    init() {}

    mutating func byte(_ value: UInt8) {
        makeRoom(1)
        let at = stagedCount
        withUnsafeMutableBytes(of: &staging) { $0[at] = value }
        stagedCount = at + 1
    }

    mutating func unsigned(_ value: UInt64) {
        makeRoom(Self.varintSize)
        let start = stagedCount
        stagedCount = withUnsafeMutableBytes(of: &staging) { raw in
            var rest = value
            var at = start
            while rest >= 0x80 {
                raw[at] = UInt8(truncatingIfNeeded: rest) | 0x80
                rest >>= 7
                at += 1
            }
            raw[at] = UInt8(rest)
            return at + 1
        }
    }

    mutating func signed(_ value: Int64) { unsigned(UInt64(bitPattern: (value << 1) ^ (value >> 63))) }
    mutating func int(_ value: Int) { signed(Int64(value)) }
    mutating func instant(_ value: Instant) { signed(value.milliseconds) }

    mutating func string(_ value: String) {
        // Through the contiguous bytes: appending the UTF-8 view went element by element, some 235 instructions a
        // key, and a snapshot writes some twenty a user, a log record three. Read in place (a copy to call
        // `withUTF8` retained every heap key); a string without contiguous bytes (bridged) takes the view.
        let written: Void? = value.utf8.withContiguousStorageIfAvailable { utf8 in
            unsigned(UInt64(utf8.count))
            raw(UnsafeRawBufferPointer(utf8))
        }
        guard written == nil else { return }
        unsigned(UInt64(value.utf8.count))
        flush()
        storage.append(contentsOf: value.utf8)
    }

    mutating func optionalString(_ value: String?) {
        if let value {
            byte(1)
            string(value)
        } else {
            byte(0)
        }
    }

    mutating func json(_ value: JSONValue) {
        let encoded = JSONWriter.write(value)
        unsigned(UInt64(encoded.count))
        encoded.withUnsafeBytes { raw($0) }
    }

    mutating func fixed32(_ value: UInt32) {
        makeRoom(4)
        let at = stagedCount
        withUnsafeMutableBytes(of: &staging) { $0.storeBytes(of: value.littleEndian, toByteOffset: at, as: UInt32.self) }
        stagedCount = at + 4
    }

    mutating func fixed64(_ value: UInt64) {
        makeRoom(8)
        let at = stagedCount
        withUnsafeMutableBytes(of: &staging) { $0.storeBytes(of: value.littleEndian, toByteOffset: at, as: UInt64.self) }
        stagedCount = at + 8
    }

    /// Bytes as they are: staged when they fit, else appended after what is staged.
    private mutating func raw(_ source: UnsafeRawBufferPointer) {
        guard let from = source.baseAddress else { return }
        let count = source.count
        guard count <= Self.stagingSize - stagedCount else {
            flush()
            storage.append(contentsOf: source)
            return
        }
        let at = stagedCount
        withUnsafeMutableBytes(of: &staging) { $0.baseAddress!.advanced(by: at).copyMemory(from: from, byteCount: count) }
        stagedCount = at + count
    }

    private mutating func makeRoom(_ count: Int) {
        if Self.stagingSize - stagedCount < count { flush() }
    }

    /// Moves what is staged to the end of `storage`, in one copy.
    private mutating func flush() {
        let count = stagedCount
        guard count > 0 else { return }
        stagedCount = 0
        let staged = staging
        withUnsafeBytes(of: staged) { storage.append(contentsOf: UnsafeRawBufferPointer(rebasing: $0[..<count])) }
    }
}
