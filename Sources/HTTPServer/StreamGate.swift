import HTTP
import Synchronization

/// The socket of one streaming response, shared between the connection's loop and publishers on other threads.
///
/// Handing an event to another loop costs a wake-up of that loop's thread, which on a small virtual machine is
/// most of an event's delivery time. So a publisher may write an event straight to the socket — but only while the
/// loop holds nothing for this stream (no bytes waiting in its buffer, no hand-off queued), and only under the
/// lock the loop also holds for its own sends, so bytes never interleave and events keep their order. Anything
/// that cannot go straight out (the kernel buffer is full, the loop has bytes waiting) is handed to the loop,
/// counted, and later direct writes wait behind it.
final class StreamGate: Sendable {
    struct State {
        var open = false
        var chunked = true
        /// Hand-offs queued for the loop and not yet taken.
        var queued = 0
        /// The loop's own buffer has bytes the socket did not take yet.
        var outputPending = false
        var lastDirectWrite: MonotonicInstant?
    }

    private let fd: Int32
    private let state = Mutex(State())

    init(fd: Int32) {
        self.fd = fd
    }

    /// The stream's head is out: direct writes may start.
    func open(chunked: Bool) {
        state.withLock {
            $0.open = true
            $0.chunked = chunked
        }
    }

    /// No direct write touches the socket after this returns, so the loop may close the descriptor.
    func close() {
        state.withLock { $0.open = false }
    }

    var lastDirectWrite: MonotonicInstant? { state.withLock { $0.lastDirectWrite } }

    /// No hand-off is waiting for the loop, so the loop may write a new event at once.
    var nothingQueued: Bool { state.withLock { $0.queued == 0 } }

    /// Any thread. Writes the event to the socket when `direct` and nothing is ahead of it; otherwise calls
    /// `handOff` with what the loop must still write — the event, or the rest of a partial write — under the lock,
    /// so hand-offs reach the loop in order.
    func send(_ frame: EventFrame, direct: Bool, handOff: (StreamBatcher.Payload) -> Void) {
        state.withLock { state in
            guard direct, state.open, state.queued == 0, !state.outputPending else {
                state.queued += 1
                handOff(.frame(frame))
                return
            }
            let wire = frame.wire(chunked: state.chunked)
            // Full, or failed: the loop carries on from where this stops and learns of any error on its own send.
            let (offset, _) = Socket.send(fd, wire, from: 0)
            if offset > 0 { state.lastDirectWrite = .now }
            if offset == wire.count { return }
            state.queued += 1
            handOff(.wire(Array(wire[offset...])))
        }
    }

    /// The loop, for each hand-off it takes, before writing it.
    func dequeued() {
        state.withLock { $0.queued -= 1 }
    }

    /// The loop's own sends on a stream: under the lock, so they never interleave with a direct write. `body`
    /// returns whether bytes are still waiting in the loop's buffer afterwards.
    func withSocket<Result: Sendable>(_ body: () -> (result: Result, pending: Bool)) -> Result {
        state.withLock { state in
            let outcome = body()
            state.outputPending = outcome.pending
            return outcome.result
        }
    }
}
