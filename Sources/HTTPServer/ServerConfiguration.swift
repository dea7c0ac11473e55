import HTTP

#if canImport(Glibc)
import Glibc
#endif

/// Everything the HTTP layer needs to run: where to listen, how, and within which bounds.
public struct ServerConfiguration: Sendable, Equatable {
    public var host: String
    /// 0 binds an ephemeral port.
    public var port: Int
    public var eventLoop: EventLoopKind
    /// Event loops (threads or serial queues); defaults to the number of cores.
    public var loopCount: Int
    public var limits: HTTPLimits
    public var timeouts: ConnectionTimeouts
    /// Open connections allowed at once. Over it a connection may still ask `probePaths` (then it closes);
    /// anything else is answered 503 and closed.
    public var maxConnections: Int
    /// Open connections allowed from one source address; one more is answered 429 and closed.
    public var maxConnectionsPerClient = 256
    /// Paths still answered over the connection cap, so liveness and readiness probes keep working when clients
    /// hold every slot.
    public var probePaths: Set<String> = ["/healthz", "/readyz"]
    /// Longest an idle epoll loop polls for events before it sleeps, adapted to the load (see `IdlePoll`); zero
    /// never polls.
    public var idlePoll = IdlePoll.defaultLimit
    /// Longest a graceful shutdown waits for in-flight requests.
    public var drainTimeout: Duration
    /// Bytes a stream may have waiting for a slow client before it is dropped: one slow reader must not
    /// hold unbounded memory (docs/api.md, "Keep-alive, slow clients, limits").
    public var streamBufferBytes = 1 << 20
    /// A stream with bytes waiting and no write progress for this long is dropped (`timeouts.streamStall`).
    public var streamStallTimeout: Duration {
        get { timeouts.streamStall }
        set { timeouts.streamStall = newValue }
    }
    /// A stream with nothing written for this long gets a comment line (`timeouts.streamHeartbeat`).
    public var streamHeartbeat: Duration {
        get { timeouts.streamHeartbeat }
        set { timeouts.streamHeartbeat = newValue }
    }

    public init(
        host: String = "127.0.0.1", port: Int = 8080, eventLoop: EventLoopKind = .epoll, loopCount: Int = defaultLoopCount,
        limits: HTTPLimits = .default, timeouts: ConnectionTimeouts = .default, maxConnections: Int = 10_000,
        drainTimeout: Duration = .seconds(10)
    ) {
        self.host = host
        self.port = port
        self.eventLoop = eventLoop
        self.loopCount = loopCount
        self.limits = limits
        self.timeouts = timeouts
        self.maxConnections = maxConnections
        self.drainTimeout = drainTimeout
    }

    /// One loop per CPU the process may really use (affinity and cgroup quota; see `CPUBudget`).
    public static var defaultLoopCount: Int { CPUBudget.current().loops }

    /// Whether the server listens on loopback only (so it may run without tokens).
    public var isLoopback: Bool { Socket.isLoopback(host) }
}
