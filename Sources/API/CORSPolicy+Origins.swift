extension CORSPolicy {
    /// Why a configured origin was refused.
    public enum OriginError: Error, Equatable {
        /// Not `scheme://host[:port]`: the message says what is wrong.
        case malformed(String)
        /// `*` beside other origins: it already allows them all.
        case wildcardNotAlone
    }

    /// The policy for a `cors.origins` list: `["*"]` allows any origin; otherwise each entry must be an origin as a
    /// browser sends it in `Origin` (RFC 6454 §6.2): `scheme://host[:port]`, no path, no trailing slash.
    public static func listing(_ entries: [String]) throws(OriginError) -> CORSPolicy {
        if entries.contains("*") {
            guard entries.count == 1 else { throw .wildcardNotAlone }
            return CORSPolicy(origins: .any)
        }
        var origins: [String] = []
        for entry in entries {
            let origin = try normalizedOrigin(entry)
            if !origins.contains(origin) { origins.append(origin) }
        }
        return CORSPolicy(origins: .listed(origins))
    }

    /// The origin as a browser serializes it: scheme and host lowercase, the scheme's default port dropped (a
    /// browser never sends `:443` for https, so a configured `https://app.example:443` would never match).
    public static func normalizedOrigin(_ text: String) throws(OriginError) -> String {
        guard let separator = text.range(of: "://") else { throw .malformed("'\(text)' is not scheme://host[:port]") }
        let scheme = text[..<separator.lowerBound].lowercased()
        let rest = text[separator.upperBound...]
        guard let first = scheme.utf8.first, isLetter(first), scheme.utf8.allSatisfy({ isLetter($0) || isDigit($0) || "+-.".utf8.contains($0) })
        else { throw .malformed("'\(text)' has no valid scheme") }
        guard !rest.isEmpty else { throw .malformed("'\(text)' has no host") }
        if rest.contains(where: { "/?#@".contains($0) }) {
            throw .malformed("'\(text)' is not scheme://host[:port]: an origin has no path, trailing slash, query or user")
        }
        var host = Substring(rest)
        var port: Substring?
        if rest.hasPrefix("[") {
            // An IPv6 literal: `[...]`, then maybe `:port`.
            guard let close = rest.firstIndex(of: "]") else { throw .malformed("'\(text)' has an unclosed IPv6 literal") }
            host = rest[...close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw .malformed("'\(text)' is not scheme://host[:port]") }
                port = after.dropFirst()
            }
            let inner = host.dropFirst().dropLast()
            guard !inner.isEmpty, inner.utf8.allSatisfy({ isHexDigit($0) || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") }) else {
                throw .malformed("'\(text)' has an invalid IPv6 literal")
            }
        } else if let colon = rest.lastIndex(of: ":") {
            host = rest[..<colon]
            port = rest[rest.index(after: colon)...]
        }
        if !host.hasPrefix("[") {
            guard !host.isEmpty, host.utf8.allSatisfy({ isLetter($0) || isDigit($0) || "-._~".utf8.contains($0) }) else {
                throw .malformed("'\(text)' has an invalid host")
            }
        }
        var origin = scheme + "://" + host.lowercased()
        if let port {
            guard !port.isEmpty, port.count <= 5, port.utf8.allSatisfy(isDigit), let number = Int(port), (1...65535).contains(number) else {
                throw .malformed("'\(text)' has an invalid port (1-65535)")
            }
            let isDefault = (scheme == "http" && number == 80) || (scheme == "https" && number == 443)
            if !isDefault { origin += ":" + String(number) }
        }
        return origin
    }

    private static func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z") }
    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
    private static func isHexDigit(_ byte: UInt8) -> Bool {
        isDigit(byte) || ((byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "f"))
    }
}
