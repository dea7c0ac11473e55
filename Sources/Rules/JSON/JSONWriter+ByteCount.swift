/// How many bytes `JSONWriter` writes for a value, without writing it: a retained stream event is counted against
/// its window's byte bound when it is made, but its bytes are made only when a stream takes it.
extension JSONWriter {
    public static func byteCount(_ value: JSONValue) -> Int {
        switch value {
        case .null: return 4
        case .bool(let flag): return flag ? 4 : 5
        case .number(let number): return number.text.utf8.count
        case .string(let text): return byteCount(string: text)
        case .array(let items):
            // Brackets and the commas between items.
            var total = items.count > 1 ? items.count + 1 : 2
            for item in items { total += byteCount(item) }
            return total
        case .object(let object):
            // Braces, a colon per member and the commas between them.
            var total = object.count > 1 ? 2 * object.count + 1 : 2 + object.count
            for (key, member) in object { total += byteCount(string: key) + byteCount(member) }
            return total
        }
    }

    /// The quoted, escaped string `writeString` writes: two-byte escapes for `"`, `\`, LF, CR and tab, six bytes
    /// (`\u00XX`) for the other control characters and DEL.
    public static func byteCount(string text: String) -> Int {
        var text = text
        return text.withUTF8 { bytes in
            var count = bytes.count + 2
            for byte in bytes where byte < 0x20 || byte == 0x7F || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), 0x0A, 0x0D, 0x09: count += 1
                default: count += 5
                }
            }
            return count
        }
    }

    /// The digits of `String(value)`, its sign included.
    public static func byteCount(decimal value: Int) -> Int {
        var count = value < 0 ? 2 : 1
        var rest = value.magnitude / 10
        while rest > 0 {
            count += 1
            rest /= 10
        }
        return count
    }
}
