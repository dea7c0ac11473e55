/// Serializes `JSONValue`s compactly, members in their kept order, numbers in their lexical form.
public enum JSONWriter {
    public static func write(_ value: JSONValue) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(64)
        write(value, into: &out)
        return out
    }

    public static func string(_ value: JSONValue) -> String {
        String(decoding: write(value), as: UTF8.self)
    }

    public static func write(_ value: JSONValue, into out: inout [UInt8]) {
        switch value {
        case .null: append("null", into: &out)
        case .bool(let flag): flag ? append("true", into: &out) : append("false", into: &out)
        case .number(let number): out.append(contentsOf: number.text.utf8)
        case .string(let text): writeString(text, into: &out)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                write(item, into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            out.append(UInt8(ascii: "{"))
            var first = true
            for (key, member) in object {
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                writeString(key, into: &out)
                out.append(UInt8(ascii: ":"))
                write(member, into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// Fixed JSON text (punctuation and member names written by hand) in one copy: appending a string's `utf8`
    /// view goes byte by byte.
    @inline(__always) public static func append(_ text: StaticString, into out: inout [UInt8]) {
        text.withUTF8Buffer { out.append(contentsOf: $0) }
    }

    /// A decimal integer's digits, made on the stack: `String(value).utf8` allocated a string for each.
    public static func appendDecimal(_ value: Int, into out: inout [UInt8]) {
        if value < 0 { out.append(UInt8(ascii: "-")) }
        appendDecimal(UInt64(value.magnitude), into: &out)
    }

    public static func appendDecimal(_ value: UInt64, into out: inout [UInt8]) {
        // 20 digits hold any UInt64.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var rest = value
            var start = 20
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            } while rest > 0
            out.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
        }
    }

    /// Escapes `"`, `\` and control characters; everything else goes out as UTF-8. Runs between escapes are
    /// copied whole: most strings have no escape at all, and a byte-by-byte append cost more than the rest of the
    /// writing.
    public static func writeString(_ text: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { bytes in
            var runStart = 0
            for position in 0..<bytes.count {
                let byte = bytes[position]
                guard byte < 0x20 || byte == 0x7F || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<position]))
                runStart = position + 1
                switch byte {
                case UInt8(ascii: "\""):
                    out.append(0x5C)
                    out.append(0x22)
                case UInt8(ascii: "\\"):
                    out.append(0x5C)
                    out.append(0x5C)
                case 0x0A:
                    out.append(0x5C)
                    out.append(UInt8(ascii: "n"))
                case 0x0D:
                    out.append(0x5C)
                    out.append(UInt8(ascii: "r"))
                case 0x09:
                    out.append(0x5C)
                    out.append(UInt8(ascii: "t"))
                default:
                    out.append(contentsOf: "\\u00".utf8)
                    out.append(hexDigits[Int(byte >> 4)])
                    out.append(hexDigits[Int(byte & 0xF)])
                }
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<bytes.count]))
        }
        out.append(UInt8(ascii: "\""))
    }

    /// The most bytes `writeString(_:into:)` writes through a cursor for `text`: two quotes and six a byte
    /// (`\u00XX`, the longest escape).
    public static func stringByteBound(_ text: String) -> Int { 2 + 6 * text.utf8.count }

    /// `writeString` through a cursor with `stringByteBound(text)` bytes of room: the same bytes.
    public static func writeString(_ text: String, into cursor: inout ByteCursor) {
        // Read in place: a copy to call `withUTF8` retains a heap string; one without contiguous bytes (bridged)
        // is made contiguous first.
        let written: Void? = text.utf8.withContiguousStorageIfAvailable { writeString(utf8: $0, into: &cursor) }
        guard written == nil else { return }
        var text = text
        text.withUTF8 { writeString(utf8: $0, into: &cursor) }
    }

    private static func writeString(utf8 bytes: UnsafeBufferPointer<UInt8>, into cursor: inout ByteCursor) {
        cursor.write(UInt8(ascii: "\""))
        var runStart = 0
        for position in 0..<bytes.count {
            let byte = bytes[position]
            guard byte < 0x20 || byte == 0x7F || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
            cursor.write(UnsafeBufferPointer(rebasing: bytes[runStart..<position]))
            runStart = position + 1
            cursor.write(0x5C)
            switch byte {
            case UInt8(ascii: "\""): cursor.write(0x22)
            case UInt8(ascii: "\\"): cursor.write(0x5C)
            case 0x0A: cursor.write(UInt8(ascii: "n"))
            case 0x0D: cursor.write(UInt8(ascii: "r"))
            case 0x09: cursor.write(UInt8(ascii: "t"))
            default:
                cursor.write("u00")
                cursor.write(hexDigits[Int(byte >> 4)])
                cursor.write(hexDigits[Int(byte & 0xF)])
            }
        }
        cursor.write(UnsafeBufferPointer(rebasing: bytes[runStart..<bytes.count]))
        cursor.write(UInt8(ascii: "\""))
    }

    /// A quoted, escaped JSON string for building small bodies by hand.
    public static func quoted(_ text: String) -> String {
        var out: [UInt8] = []
        writeString(text, into: &out)
        return String(decoding: out, as: UTF8.self)
    }
}
