/// Deadlines and bounds for one connection (see the README's limits).
public struct ConnectionTimeouts: Sendable, Equatable {
    /// From the first byte of a request to the end of its header section (408 after it). Total, not per read:
    /// a client dripping header bytes does not extend it.
    public var header: Duration { didSet { spans = Spans(self) } }
    /// Longest wait between two reads of a body (408 after it).
    public var bodyIdle: Duration { didSet { spans = Spans(self) } }
    /// From the end of the head to the end of the body, however steadily bytes arrive (408 after it), so a
    /// client sending one byte every few seconds cannot hold a connection forever.
    public var body: Duration { didSet { spans = Spans(self) } }
    /// Longest wait for the next request on an idle keep-alive connection (closed quietly after it).
    public var keepAliveIdle: Duration { didSet { spans = Spans(self) } }
    /// Requests served on one connection before it is closed (`Connection: close` on the last one).
    public var maxRequestsPerConnection: Int
    /// How long a closing connection keeps reading and discarding after its last response, so the client sees
    /// that response instead of a reset (the "lingering close" of RFC 9112 §9.6).
    public var lingerClose: Duration { didSet { spans = Spans(self) } }
    /// Response bytes that may wait for the client before the connection stops reading and parsing, so
    /// pipelined requests whose answers are not read cannot make the server buffer without bound.
    public var maxPendingOutputBytes: Int
    /// A stream with nothing written for this long gets a comment line, so proxies and clients see it alive.
    public var streamHeartbeat: Duration { didSet { spans = Spans(self) } }
    /// A stream with bytes waiting and no write progress for this long is dropped (its client stopped reading).
    public var streamStall: Duration { didSet { spans = Spans(self) } }

    public init(
        header: Duration = .seconds(10), bodyIdle: Duration = .seconds(10), body: Duration = .seconds(60),
        keepAliveIdle: Duration = .seconds(75), maxRequestsPerConnection: Int = 1000, lingerClose: Duration = .seconds(2),
        maxPendingOutputBytes: Int = 256 * 1024, streamHeartbeat: Duration = .seconds(15), streamStall: Duration = .seconds(30)
    ) {
        self.streamHeartbeat = streamHeartbeat
        self.streamStall = streamStall
        self.header = header
        self.bodyIdle = bodyIdle
        self.body = body
        self.keepAliveIdle = keepAliveIdle
        self.maxRequestsPerConnection = maxRequestsPerConnection
        self.lingerClose = lingerClose
        self.maxPendingOutputBytes = maxPendingOutputBytes
        spans = Spans(header: 0, bodyIdle: 0, body: 0, keepAliveIdle: 0, lingerClose: 0, streamHeartbeat: 0, streamStall: 0)
        spans = Spans(self)
    }

    /// The durations above in whole nanoseconds (saturated), converted when set rather than on every deadline a
    /// connection computes: a `Duration` is 128 bits of attoseconds, and splitting one into components costs
    /// hundreds of instructions, several times per request.
    public private(set) var spans: Spans

    public struct Spans: Sendable, Equatable {
        public var header, bodyIdle, body, keepAliveIdle, lingerClose, streamHeartbeat, streamStall: Int64

        init(
            header: Int64, bodyIdle: Int64, body: Int64, keepAliveIdle: Int64, lingerClose: Int64, streamHeartbeat: Int64,
            streamStall: Int64
        ) {
            self.header = header
            self.bodyIdle = bodyIdle
            self.body = body
            self.keepAliveIdle = keepAliveIdle
            self.lingerClose = lingerClose
            self.streamHeartbeat = streamHeartbeat
            self.streamStall = streamStall
        }

        init(_ timeouts: ConnectionTimeouts) {
            self.init(
                header: timeouts.header.saturatingNanoseconds, bodyIdle: timeouts.bodyIdle.saturatingNanoseconds,
                body: timeouts.body.saturatingNanoseconds, keepAliveIdle: timeouts.keepAliveIdle.saturatingNanoseconds,
                lingerClose: timeouts.lingerClose.saturatingNanoseconds,
                streamHeartbeat: timeouts.streamHeartbeat.saturatingNanoseconds,
                streamStall: timeouts.streamStall.saturatingNanoseconds)
        }
    }

    public static let `default` = ConnectionTimeouts()
}
