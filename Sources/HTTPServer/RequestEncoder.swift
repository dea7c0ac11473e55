/// Builds the bytes of one client request (RFC 9112 §3), refusing anything that would let a caller's value change
/// the framing: a CR or LF in a header, a method that is not a token, a target that is not printable.
enum RequestEncoder {
    /// Framing headers the client writes itself; a caller's copy could contradict the body it sends.
    private static let reserved = ["content-length", "transfer-encoding", "connection"]

    static func encode(
        method: String, path: String, headers: [(name: String, value: String)], body: [UInt8], host: String, userAgent: String
    ) throws(HTTPClientError) -> [UInt8] {
        guard !method.isEmpty, method.utf8.allSatisfy(isToken) else { throw .invalidRequestLine }
        guard path.hasPrefix("/"), path.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { throw .invalidRequestLine }
        var text = "\(method) \(path) HTTP/1.1\r\n"
        var hasHost = false
        var hasUserAgent = false
        for (name, value) in headers {
            guard !name.isEmpty, name.utf8.allSatisfy(isToken), !reserved.contains(name.lowercased()) else {
                throw .invalidRequestHeader(name: name)
            }
            guard value.utf8.allSatisfy({ $0 == 9 || ($0 >= 0x20 && $0 != 0x7F) }) else { throw .invalidRequestHeader(name: name) }
            hasHost = hasHost || name.lowercased() == "host"
            hasUserAgent = hasUserAgent || name.lowercased() == "user-agent"
        }
        if !hasHost { text += "Host: \(host)\r\n" }
        if !hasUserAgent { text += "User-Agent: \(userAgent)\r\n" }
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        // A body, or a method that normally has one, gets an explicit length (RFC 9110 §8.6).
        if !body.isEmpty || ["POST", "PUT", "PATCH"].contains(method) { text += "Content-Length: \(body.count)\r\n" }
        text += "\r\n"
        return Array(text.utf8) + body
    }

    private static func isToken(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"): return true
        default: return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}
