import HTTP
#if canImport(Glibc)
import Glibc
#endif

/// A listening socket on one event loop: accepts, enforces the connection cap, and hands sockets to connections
/// on the same loop.
final class Listener: Channel, @unchecked Sendable {
    let fd: Int32
    private let loop: EventLoop
    private let context: ServerContext
    private let readBuffer = ReadBuffer()
    private let batcher: StreamBatcher
    /// Prebuilt answer for connections over the cap: sent best-effort, then the socket is closed.
    private let overloaded: [UInt8]

    init(fd: Int32, loop: EventLoop, context: ServerContext) {
        self.fd = fd
        self.loop = loop
        self.context = context
        batcher = StreamBatcher(loop: loop)
        var response: [UInt8] = []
        let error = APIError.unavailable("too_many_connections", "the server has reached its connection limit")
        var errorResponse = error.response
        errorResponse.headers.set("X-Request-Id", "overload")
        HTTPResponseEncoder.encode(errorResponse, version: .http11, keepAlive: false, isHead: false,
                                   date: context.dates.current(), into: &response)
        overloaded = response
    }

    func readable() {
        // Bounded so one busy listener cannot starve the connections on its loop.
        for _ in 0..<64 {
            guard let (socket, peer) = Socket.accept(fd) else { return }
            guard context.tryOpenConnection() else {
                overloaded.withUnsafeBytes { _ = Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                shutdown(socket, Int32(SHUT_WR))
                Glibc.close(socket)
                continue
            }
            let connection = HTTPConnection(fd: socket, peer: peer, loop: loop, context: context, readBuffer: readBuffer, batcher: batcher)
            loop.add(connection)
        }
    }

    func writable() {}
    func tick(now: ContinuousClock.Instant) {}
}
