/// How the body of a request is delimited (RFC 9112 §6.3).
public enum BodyFraming: Sendable, Equatable {
    case none
    case length(Int)
    case chunked
}

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
    public var path: Substring {
        var rest = Substring(target)
        if !rest.hasPrefix("/"), let colon = rest.firstIndex(of: ":") {
            // absolute-form (RFC 9112 §3.2.2): drop "scheme://authority".
            rest = rest[colon...].drop { $0 == ":" || $0 == "/" }
            rest = rest.firstIndex(of: "/").map { rest[$0...] } ?? "/"
        }
        if let query = rest.firstIndex(where: { $0 == "?" || $0 == "#" }) { return rest[..<query] }
        return rest
    }

    /// The raw query string after `?`, if any.
    public var query: Substring? {
        guard let mark = target.firstIndex(of: "?") else { return nil }
        let afterMark = target[target.index(after: mark)...]
        return afterMark.firstIndex(of: "#").map { afterMark[..<$0] } ?? afterMark
    }
}
