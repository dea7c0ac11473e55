/// The `Host` grammar of RFC 9112 §3.2: `uri-host [ ":" port ]`, with `uri-host` from RFC 3986 §3.2.2 — an
/// IP literal in brackets, or a reg-name (which covers IPv4 addresses) — and `port = *DIGIT`. A host that fails
/// it is refused with 400: servers and proxies that parse an odd host differently disagree on where a request
/// goes, and a name echoed into logs or redirects must not carry spaces, slashes or `@`.
enum HostValidation {
    static func isValid(_ value: String) -> Bool {
        // On the bytes in place: checked on every request, and walking a string's UTF-8 view index by index cost
        // several times the check itself.
        var value = value
        return value.withUTF8 { isValid($0[...]) }
    }

    private static func isValid(_ value: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        var bytes = value
        // RFC 9112 §3.2: an empty Host is what a client sends when the target has no authority.
        if bytes.isEmpty { return true }
        if bytes.first == UInt8(ascii: "[") {
            guard let close = bytes.firstIndex(of: UInt8(ascii: "]")) else { return false }
            guard isIPLiteral(bytes[bytes.index(after: bytes.startIndex)..<close]) else { return false }
            bytes = bytes[bytes.index(after: close)...]
        } else {
            let end = bytes.firstIndex(of: UInt8(ascii: ":")) ?? bytes.endIndex
            guard isRegisteredName(bytes[..<end]) else { return false }
            bytes = bytes[end...]
        }
        guard let colon = bytes.first else { return true }
        return colon == UInt8(ascii: ":") && bytes.dropFirst().allSatisfy(isDigit)
    }

    /// `reg-name = *( unreserved / pct-encoded / sub-delims )`, without the comma: a comma is how an intermediary
    /// joins two `Host` fields into one (RFC 9110 §5.3), so it is refused like a repeated `Host`.
    private static func isRegisteredName(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                let first = bytes.index(after: index)
                guard first < bytes.endIndex, isHexDigit(bytes[first]) else { return false }
                let second = bytes.index(after: first)
                guard second < bytes.endIndex, isHexDigit(bytes[second]) else { return false }
                index = bytes.index(after: second)
                continue
            }
            guard isUnreserved(byte) || (isSubDelimiter(byte) && byte != UInt8(ascii: ",")) else { return false }
            index = bytes.index(after: index)
        }
        return true
    }

    /// `IPv6address` (loosely: hex digits, colons and dots for an embedded IPv4, at least one colon) or
    /// `IPvFuture = "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" )`.
    private static func isIPLiteral(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        guard let first = bytes.first else { return false }
        if first == UInt8(ascii: "v") || first == UInt8(ascii: "V") {
            let rest = bytes.dropFirst()
            guard let dot = rest.firstIndex(of: UInt8(ascii: ".")) else { return false }
            let version = rest[..<dot]
            let address = rest[rest.index(after: dot)...]
            return !version.isEmpty && version.allSatisfy(isHexDigit) && !address.isEmpty
                && address.allSatisfy { isUnreserved($0) || isSubDelimiter($0) || $0 == UInt8(ascii: ":") }
        }
        return bytes.contains(UInt8(ascii: ":"))
            && bytes.allSatisfy { isHexDigit($0) || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") }
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        isDigit(byte) || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "f"))
    }

    /// `unreserved = ALPHA / DIGIT / "-" / "." / "_" / "~"`
    private static func isUnreserved(_ byte: UInt8) -> Bool {
        isDigit(byte) || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "z"))
            || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "~")
    }

    /// `sub-delims = "!" / "$" / "&" / "'" / "(" / ")" / "*" / "+" / "," / ";" / "="`
    private static func isSubDelimiter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("), UInt8(ascii: ")"),
            UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "="):
            return true
        default:
            return false
        }
    }
}
