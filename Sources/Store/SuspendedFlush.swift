import Synchronization

/// A batch whose fsync is out while the loop that wrote it went back to its sockets (`AppendLog.flushRoundHere`,
/// pipelined). The log's file stays held by the batch, not by a thread: the loop finishes the batch when the
/// fsync thread hands the result back to it, or, if that loop never runs again (the server stopped first),
/// whoever next waits for the file does (`AppendLog.acquireFile`). `claim` makes sure only one of them does.
///
/// Threads: `returned` is called on the fsync thread; `claim` and `hasReturned` on any thread.
final class SuspendedFlush: Sendable {
    private enum State {
        case onDisk
        case returned(Result<Void, IOError>)
        case claimed
    }

    private let state = Mutex(State.onDisk)

    /// The fsync returned.
    func returned(_ result: Result<Void, IOError>) {
        state.withLock { $0 = .returned(result) }
    }

    var hasReturned: Bool {
        state.withLock { state in
            if case .returned = state { return true }
            return false
        }
    }

    /// The fsync's result, to the first caller after it returned; `nil` before it returned and to every later caller.
    func claim() -> Result<Void, IOError>? {
        state.withLock { state in
            guard case .returned(let result) = state else { return nil }
            state = .claimed
            return result
        }
    }
}
