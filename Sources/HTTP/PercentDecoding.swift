/// Percent-decoding of path segments and query components (RFC 3986 §2.1).
public enum PercentDecoding {
    /// Decodes `%XX` escapes; `nil` when an escape is malformed or the result is not UTF-8. Concrete, not generic:
    /// an unspecialized generic across the module boundary cost more than the decoding.
    /// `plusAsSpace` applies the form-encoding rule for query strings.
    public static func decode(_ text: Substring, plusAsSpace: Bool = false) -> String? {
        var text = text
        return text.withUTF8 { decode($0, plusAsSpace: plusAsSpace) }
    }

    /// The same on bytes that are UTF-8 already (a slice of a request target), so a caller holding the bytes
    /// makes no substring to decode them.
    public static func decode(_ utf8: UnsafeBufferPointer<UInt8>, plusAsSpace: Bool = false) -> String? {
        guard utf8.contains(UInt8(ascii: "%")) || (plusAsSpace && utf8.contains(UInt8(ascii: "+"))) else {
            return String(decoding: utf8, as: UTF8.self)
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var index = 0
        while index < utf8.count {
            let byte = utf8[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < utf8.count, let high = ASCII.hexValue(utf8[index + 1]), let low = ASCII.hexValue(utf8[index + 2])
                else { return nil }
                bytes.append(UInt8(high << 4 | low))
                index += 3
                continue
            }
            bytes.append(plusAsSpace && byte == UInt8(ascii: "+") ? ASCII.space : byte)
            index += 1
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
