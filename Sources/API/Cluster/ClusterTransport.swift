import Engine
import HTTP

/// What cluster mode needs from an HTTP client: one exchange, or one streamed answer, with another member. Blocking:
/// callers run it on a worker thread, never on an event loop. The production conformance wraps the project's
/// HTTP client (`HTTPClientTransport`); tests use doubles.
public protocol ClusterTransport: Sendable {
    /// Sends one request and reads the whole answer.
    func send(
        _ request: ClusterTransportRequest, to member: ClusterMembership.Member, timeout: Duration
    ) throws(ClusterTransportError)
        -> ClusterTransportResponse

    /// Sends one request and hands over the answer as it arrives: the head (body empty) once, then body bytes as they
    /// come, until the answer ends or a callback returns `false`. Returns when the exchange is over.
    func stream(
        _ request: ClusterTransportRequest, to member: ClusterMembership.Member, connectTimeout: Duration,
        onHead: (ClusterTransportResponse) -> Bool, onBody: ([UInt8]) -> Bool
    ) throws(ClusterTransportError)
}

/// One request to another member: the target as the client sent it (path and query, still encoded).
public struct ClusterTransportRequest: Sendable {
    public var method: String
    public var target: String
    public var headers: HTTPHeaders
    public var body: [UInt8]

    public init(method: String, target: String, headers: HTTPHeaders, body: [UInt8]) {
        self.method = method
        self.target = target
        self.headers = headers
        self.body = body
    }
}

/// A member's answer.
public struct ClusterTransportResponse: Sendable {
    public var status: HTTPStatus
    public var headers: HTTPHeaders
    public var body: [UInt8]

    public init(status: HTTPStatus, headers: HTTPHeaders, body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// Why a member could not be asked: nothing was answered, so the member counts as unreachable.
public enum ClusterTransportError: Error, Equatable, Sendable {
    case unreachable(String)
    case timedOut
    case malformedResponse(String)
}
