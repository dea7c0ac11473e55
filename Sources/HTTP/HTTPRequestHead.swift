/// A request line and header section that passed every framing check.
public struct HTTPRequestHead: Sendable, Equatable {
    public var method: String
    /// The request target as sent (origin-form, absolute-form or `*`).
    public var target: String
    public var version: HTTPVersion
    public var headers: HTTPHeaders
    /// Whether the connection may serve another request after this one (RFC 9112 §9.3).
    public var keepAlive: Bool
    /// `Expect: 100-continue` was sent with a body to come (RFC 9110 §10.1.1).
    public var expectsContinue: Bool
    public var framing: BodyFraming

    public init(
        method: String, target: String, version: HTTPVersion = .http11, headers: HTTPHeaders = [:],
        keepAlive: Bool = true, expectsContinue: Bool = false, framing: BodyFraming = .none
    ) {
        self.method = method
        self.target = target
        self.version = version
        self.headers = headers
        self.keepAlive = keepAlive
        self.expectsContinue = expectsContinue
        self.framing = framing
    }

    /// The path part of the target, still percent-encoded; absolute-form targets are reduced to their path.
    /// Found on the target's bytes in place: the target is ASCII (the parser refused anything else), and both
    /// Character iteration and walking the UTF-8 view index by index were visible costs per request.
    public var path: Substring {
        let (start, end) = pathBounds()
        guard start >= 0 else { return "/" }
        return slice(start, end)
    }

    /// The raw query string after `?`, if any.
    public var query: Substring? {
        var target = target
        let bounds = target.withUTF8 { bytes -> (Int, Int)? in
            guard let mark = bytes.firstIndex(of: UInt8(ascii: "?")) else { return nil }
            let end = bytes[(mark + 1)...].firstIndex(of: UInt8(ascii: "#")) ?? bytes.count
            return (mark + 1, end)
        }
        return bounds.map { slice($0.0, $0.1) }
    }

    /// Byte offsets of the path in the target; a negative start when an absolute-form target has no path.
    private func pathBounds() -> (Int, Int) {
        var target = target
        return target.withUTF8 { bytes in
            var start = 0
            if bytes.first != UInt8(ascii: "/"), let colon = bytes.firstIndex(of: UInt8(ascii: ":")) {
                // absolute-form (RFC 9112 §3.2.2): skip "scheme://authority".
                var index = colon + 1
                while index < bytes.count, bytes[index] == UInt8(ascii: "/") { index += 1 }
                guard let slash = bytes[index...].firstIndex(of: UInt8(ascii: "/")) else { return (-1, -1) }
                start = slash
            }
            let end = bytes[start...].firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? bytes.count
            return (start, end)
        }
    }

    /// The target between two byte offsets that fall on ASCII delimiters (or the ends), so on character boundaries.
    private func slice(_ start: Int, _ end: Int) -> Substring {
        let utf8 = target.utf8
        return target[utf8.index(utf8.startIndex, offsetBy: start)..<utf8.index(utf8.startIndex, offsetBy: end)]
    }
}
