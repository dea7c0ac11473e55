import Synchronization

/// The writing end of one streaming response. Safe from any thread: writes hop to the connection's loop. Closed
/// once, by either side; `onClose` handlers learn why.
public final class EventStream: Sendable {
    public enum CloseReason: Sendable, Equatable {
        /// The client went away.
        case peerClosed
        /// The server closed it (shutdown, or the stream's owner).
        case serverClosed
        /// The client read too slowly: the send buffer filled, or nothing was written for too long.
        case slowConsumer
    }

    private let write: @Sendable (_ frame: EventFrame, _ direct: Bool) -> Void
    private let finish: @Sendable () -> Void
    private let state = Mutex<(closed: Bool, handlers: [@Sendable (CloseReason) -> Void])>((false, []))

    init(write: @escaping @Sendable (_ frame: EventFrame, _ direct: Bool) -> Void, finish: @escaping @Sendable () -> Void) {
        self.write = write
        self.finish = finish
    }

    public var isClosed: Bool { state.withLock { $0.closed } }

    /// Queues bytes (one SSE event or comment) for the client. `direct`: the caller is sending to few streams,
    /// so writing from its own thread beats waking the stream's loop; a large fan-out leaves `false` so each
    /// loop writes its share in parallel.
    public func send(_ frame: EventFrame, direct: Bool = false) {
        guard !isClosed else { return }
        write(frame, direct)
    }

    public func send(_ bytes: [UInt8]) {
        send(EventFrame(bytes))
    }

    /// Ends the stream from the server side.
    public func close() {
        guard !isClosed else { return }
        finish()
    }

    /// Runs once when the stream closes; at once if it already has.
    public func onClose(_ handler: @escaping @Sendable (CloseReason) -> Void) {
        let alreadyClosed = state.withLock { state -> Bool in
            if state.closed { return true }
            state.handlers.append(handler)
            return false
        }
        if alreadyClosed { handler(.serverClosed) }
    }

    /// Called by the connection when the stream ends, whatever ended it.
    func markClosed(_ reason: CloseReason) {
        let handlers = state.withLock { state -> [@Sendable (CloseReason) -> Void] in
            guard !state.closed else { return [] }
            state.closed = true
            defer { state.handlers = [] }
            return state.handlers
        }
        for handler in handlers { handler(reason) }
    }
}
