import Synchronization

/// Runs one shard's write completions in seq order without holding a lock while they run.
///
/// Whichever thread releases completions runs them, and every completion released meanwhile (by other threads'
/// acknowledgements) joins its queue: one drainer at a time, so order holds across threads. A completion may write
/// again (its acknowledgement joins the same queue).
final class OrderedCompletions: Sendable {
    typealias Work = @Sendable () -> Void

    private struct State {
        var order = CompletionOrder<Work>()
        var queue: [Work] = []
        var head = 0
        var draining = false
    }

    private let state = Mutex(State())

    /// Called under the shard lock, in apply order.
    func register(_ seq: UInt64) {
        state.withLock { $0.order.register(seq) }
    }

    func complete(_ seq: UInt64, _ work: @escaping Work) {
        let drains = state.withLock { state -> Bool in
            state.queue += state.order.complete(seq, work)
            guard !state.draining, state.head < state.queue.count else { return false }
            state.draining = true
            return true
        }
        guard drains else { return }
        while let next = nextWork() { next() }
    }

    private func nextWork() -> Work? {
        state.withLock { state -> Work? in
            guard state.head < state.queue.count else {
                state.queue.removeAll(keepingCapacity: true)
                state.head = 0
                state.draining = false
                return nil
            }
            defer { state.head += 1 }
            return state.queue[state.head]
        }
    }
}
