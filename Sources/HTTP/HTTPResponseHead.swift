/// The status line and header fields of one final (non-1xx) response.
public struct HTTPResponseHead: Sendable, Equatable {
    /// How the body that follows is delimited (RFC 9112 §6.3), as the parser decided it.
    public enum Framing: Sendable, Equatable {
        /// No body at all: a response to HEAD, a 204 or a 304, or `Content-Length: 0`.
        case none
        case length(Int)
        case chunked
        /// Everything until the server closes; such a connection can never be reused.
        case untilClose
    }

    public var version: HTTPVersion
    public var status: Int
    public var reason: String
    public var headers: HTTPHeaders
    public var framing: Framing
    /// Whether the connection may carry another request once this response has ended.
    public var keepAlive: Bool

    public init(version: HTTPVersion, status: Int, reason: String, headers: HTTPHeaders, framing: Framing, keepAlive: Bool) {
        self.version = version
        self.status = status
        self.reason = reason
        self.headers = headers
        self.framing = framing
        self.keepAlive = keepAlive
    }
}
