/// Percent-decoding of path segments and query components (RFC 3986 §2.1).
public enum PercentDecoding {
    /// Decodes `%XX` escapes; `nil` when an escape is malformed or the result is not UTF-8. Concrete, not generic:
    /// an unspecialized generic across the module boundary cost more than the decoding.
    /// `plusAsSpace` applies the form-encoding rule for query strings.
    public static func decode(_ text: Substring, plusAsSpace: Bool = false) -> String? {
        let utf8 = text.utf8
        guard utf8.contains(UInt8(ascii: "%")) || (plusAsSpace && utf8.contains(UInt8(ascii: "+"))) else {
            return String(text)
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var index = utf8.startIndex
        while index < utf8.endIndex {
            let byte = utf8[index]
            if byte == UInt8(ascii: "%") {
                let first = utf8.index(after: index)
                guard first < utf8.endIndex else { return nil }
                let second = utf8.index(after: first)
                guard second < utf8.endIndex, let high = ASCII.hexValue(utf8[first]), let low = ASCII.hexValue(utf8[second])
                else { return nil }
                bytes.append(UInt8(high << 4 | low))
                index = utf8.index(after: second)
                continue
            }
            bytes.append(plusAsSpace && byte == UInt8(ascii: "+") ? ASCII.space : byte)
            index = utf8.index(after: index)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    /// Splits a query string into decoded name/value pairs; malformed pairs are skipped.
    public static func queryItems(_ query: Substring) -> [(name: String, value: String)] {
        query.split(separator: "&", omittingEmptySubsequences: true).compactMap { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decode(parts[0], plusAsSpace: true) else { return nil }
            let value = parts.count > 1 ? decode(parts[1], plusAsSpace: true) : ""
            return value.map { (name, $0) }
        }
    }
}
