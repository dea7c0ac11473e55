import Rules

/// Appends a compact binary encoding: LEB128 varints (zigzag for signed), length-prefixed UTF-8 strings.
struct BinaryWriter {
    var bytes: [UInt8] = []

    mutating func byte(_ value: UInt8) { bytes.append(value) }

    mutating func unsigned(_ value: UInt64) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
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
            bytes.append(contentsOf: utf8)
        }
        guard written == nil else { return }
        unsigned(UInt64(value.utf8.count))
        bytes.append(contentsOf: value.utf8)
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
        bytes.append(contentsOf: encoded)
    }

    mutating func fixed32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) } }
    mutating func fixed64(_ value: UInt64) { withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) } }
}
