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
    /// Scans UTF-8 code units: the target is ASCII (the parser refused anything else), and Character iteration
    /// was a visible cost per request.
    public var path: Substring {
        let utf8 = target.utf8
        var start = utf8.startIndex
        if utf8.first != UInt8(ascii: "/"), let colon = utf8.firstIndex(of: UInt8(ascii: ":")) {
            // absolute-form (RFC 9112 §3.2.2): skip "scheme://authority".
            var index = utf8.index(after: colon)
            while index < utf8.endIndex, utf8[index] == UInt8(ascii: "/") { index = utf8.index(after: index) }
            guard let slash = utf8[index...].firstIndex(of: UInt8(ascii: "/")) else { return "/" }
            start = slash
        }
        let end = utf8[start...].firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? utf8.endIndex
        return target[start..<end]
    }

    /// The raw query string after `?`, if any.
    public var query: Substring? {
        let utf8 = target.utf8
        guard let mark = utf8.firstIndex(of: UInt8(ascii: "?")) else { return nil }
        let start = utf8.index(after: mark)
        let end = utf8[start...].firstIndex(of: UInt8(ascii: "#")) ?? utf8.endIndex
        return target[start..<end]
    }
}
