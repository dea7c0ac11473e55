/// Deadlines and reuse bounds for one connection (DESIGN §11).
public struct ConnectionTimeouts: Sendable, Equatable {
    /// From the first byte of a request to the end of its header section (408 after it).
    public var header: Duration
    /// Longest wait between two reads of a body (408 after it).
    public var bodyIdle: Duration
    /// Longest wait for the next request on an idle keep-alive connection (closed quietly after it).
    public var keepAliveIdle: Duration
    /// Requests served on one connection before it is closed (`Connection: close` on the last one).
    public var maxRequestsPerConnection: Int
    /// How long a closing connection keeps reading and discarding after its last response, so the client sees
    /// that response instead of a reset (the "lingering close" of RFC 9112 §9.6).
    public var lingerClose: Duration

    public init(
        header: Duration = .seconds(10), bodyIdle: Duration = .seconds(10), keepAliveIdle: Duration = .seconds(75),
        maxRequestsPerConnection: Int = 1000, lingerClose: Duration = .seconds(2)
    ) {
        self.header = header
        self.bodyIdle = bodyIdle
        self.keepAliveIdle = keepAliveIdle
        self.maxRequestsPerConnection = maxRequestsPerConnection
        self.lingerClose = lingerClose
    }

    public static let `default` = ConnectionTimeouts()
}
