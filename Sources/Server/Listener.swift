import HTTP
#if canImport(Glibc)
import Glibc
#endif

/// A listening socket on one event loop: accepts, enforces the connection caps, and hands sockets to connections
/// on the same loop.
///
/// Over the global cap a connection is still accepted into one of a few probe slots on this loop, where only the
/// probe paths (`/healthz`, `/readyz`) are answered: liveness checks must not fail because clients hold every
/// slot. When those slots are full the oldest is closed, so clients holding them cannot lock probes out either.
final class Listener: Channel, @unchecked Sendable {
    let fd: Int32
    private let loop: EventLoop
    private let context: ServerContext
    private let readBuffer = ReadBuffer()
    private let batcher: StreamBatcher
    /// Prebuilt answer for a client over its own connection cap: sent best-effort, then the socket is closed.
    private let clientOverLimit: [UInt8]
    /// Connections over the global cap, oldest first; loop-owned.
    private var probeConnections: [HTTPConnection] = []
    static let probeSlots = 16

    init(fd: Int32, loop: EventLoop, context: ServerContext) {
        self.fd = fd
        self.loop = loop
        self.context = context
        batcher = StreamBatcher(loop: loop)
        let limit = context.configuration.maxConnectionsPerClient
        var error = APIError(.tooManyRequests, code: "too_many_client_connections",
                             message: "this client address already has \(limit) open connections (limits.maxConnectionsPerClient)",
                             field: "limits.maxConnectionsPerClient", retryable: true, headers: ["Retry-After": "1"]).response
        error.headers.set("X-Request-Id", "overload")
        var response: [UInt8] = []
        HTTPResponseEncoder.encode(error, version: .http11, keepAlive: false, isHead: false,
                                   date: context.dates.current(), into: &response)
        clientOverLimit = response
    }

    func readable() {
        // Bounded so one busy listener cannot starve the connections on its loop.
        for _ in 0..<64 {
            guard let (socket, peer, client) = Socket.accept(fd) else { return }
            switch context.admit(client: client) {
            case .accepted:
                let connection = HTTPConnection(fd: socket, peer: peer, client: client, loop: loop, context: context,
                                                readBuffer: readBuffer, batcher: batcher)
                loop.add(connection)
            case .clientOverLimit:
                clientOverLimit.withUnsafeBytes { _ = Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                shutdown(socket, Int32(SHUT_WR))
                Glibc.close(socket)
            case .overCapacity:
                probeConnections.removeAll { $0.isClosed }
                if probeConnections.count >= Self.probeSlots { probeConnections.removeFirst().close() }
                let connection = HTTPConnection(fd: socket, peer: peer, client: client, holdsSlot: false, loop: loop,
                                                context: context, readBuffer: readBuffer, batcher: batcher)
                probeConnections.append(connection)
                loop.add(connection)
            }
        }
    }

    func writable() {}
    func tick(now: ContinuousClock.Instant) {}
}
