import HTTP

#if canImport(Glibc)
import Glibc
#endif

/// A listening socket on one event loop: accepts, enforces the connection caps, and hands sockets to connections
/// on the same loop.
///
/// Over the global cap, or over its client's own cap, a connection is still accepted into one of a few probe slots
/// on this loop, where only the probe paths (`/healthz`, `/readyz`) are answered: liveness checks must not fail
/// because clients hold every slot, nor because a probe shares its address with a client at its cap. Anything
/// else is refused there (503 over the global cap, 429 over the client's). When those slots are full the oldest is
/// closed, so clients holding them cannot lock probes out either.
final class Listener: Channel, @unchecked Sendable {
    let fd: Int32
    private let loop: EventLoop
    private let context: ServerContext
    private let readBuffer = ReadBuffer()
    private let batcher: StreamBatcher
    /// Connections over the global cap, oldest first; loop-owned.
    private var probeConnections: [HTTPConnection] = []
    static let probeSlots = 16
    /// How long accepting pauses when descriptors run out. The listening socket is level-triggered: without the
    /// pause the loop would wake for it again at once, spinning a core until a descriptor frees.
    static let exhaustedPause: Duration = .milliseconds(100)
    /// Until when accepting is paused; loop-owned.
    private var pausedUntil: MonotonicInstant?
    /// When the last pause was logged; loop-owned (one line per 10 s, not one per 100 ms).
    private var lastPauseLogged: MonotonicInstant?

    init(fd: Int32, loop: EventLoop, context: ServerContext) {
        self.fd = fd
        self.loop = loop
        self.context = context
        batcher = StreamBatcher(loop: loop)
    }

    func readable() {
        // Bounded so one busy listener cannot starve the connections on its loop.
        for _ in 0..<64 {
            let (socket, peer, client): (Int32, String, String)
            switch Socket.accept(fd) {
            case .connection(let accepted, let acceptedPeer, let acceptedClient):
                (socket, peer, client) = (accepted, acceptedPeer, acceptedClient)
            case .none:
                return
            case .exhausted(let code):
                pause(errno: code)
                return
            }
            switch context.admit(client: client) {
            case .accepted:
                let connection = HTTPConnection(
                    fd: socket, peer: peer, client: client, loop: loop, context: context,
                    readBuffer: readBuffer, batcher: batcher)
                loop.add(connection)
            case .clientOverLimit:
                acceptForProbes(socket, peer: peer, client: client, refusal: context.clientOverLimit)
            case .overCapacity:
                acceptForProbes(socket, peer: peer, client: client, refusal: ServerContext.overCapacity)
            }
        }
    }

    /// A connection holding no slot: its first request is read, a probe answered, anything else gets `refusal`
    /// (with the date of the moment, as every response), then it closes.
    private func acceptForProbes(_ socket: Int32, peer: String, client: String, refusal: HTTPResponse) {
        probeConnections.removeAll { $0.isClosed }
        if probeConnections.count >= Self.probeSlots { probeConnections.removeFirst().close() }
        let connection = HTTPConnection(
            fd: socket, peer: peer, client: client, holdsSlot: false, refusal: refusal, loop: loop,
            context: context, readBuffer: readBuffer, batcher: batcher)
        probeConnections.append(connection)
        loop.add(connection)
    }

    /// Out of descriptors: stop listening for a moment (connections wait in the backlog) and say so.
    private func pause(errno code: Int32) {
        let now = MonotonicInstant.now
        pausedUntil = now + Self.exhaustedPause
        context.acceptPauses.add(1, ordering: .relaxed)
        loop.setInterest(self, read: false, write: false)
        loop.setDeadline(self, pausedUntil)
        if lastPauseLogged.map({ now - $0 >= .seconds(10) }) ?? true {
            lastPauseLogged = now
            context.events.record(.acceptPaused(errno: code, pauseMillis: 100, openConnections: context.openConnections.load(ordering: .relaxed)))
        }
    }

    func writable() {}

    func tick(now: MonotonicInstant) {
        guard let until = pausedUntil, now >= until else { return }
        pausedUntil = nil
        loop.setDeadline(self, nil)
        loop.setInterest(self, read: true, write: false)
    }
}
