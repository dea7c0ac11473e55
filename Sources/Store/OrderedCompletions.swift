import Synchronization

/// Runs one shard's write completions in seq order without holding a lock while they run.
///
/// Whichever thread releases completions runs them, and every completion released meanwhile (by other threads'
/// acknowledgements) joins its queue: one drainer at a time, so order holds across threads. A completion may write
/// again (its acknowledgement joins the same queue).
final class OrderedCompletions: Sendable {
    typealias Completion = @Sendable (Result<UserStore.Applied, StoreError>) -> Void
    /// A write's completion and what to tell it, held together: a closure made per write to call one with the
    /// other was an allocation and a free per write. A struct, not a tuple: a function stored as (part of) a
    /// generic parameter is wrapped in a thunk to the generic form and unwrapped again, two more allocations.
    struct Work: Sendable {
        let completion: Completion
        let outcome: Result<UserStore.Applied, StoreError>
    }

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

    func complete(_ seq: UInt64, _ completion: @escaping Completion, _ outcome: Result<UserStore.Applied, StoreError>) {
        let drains = state.withLock { state -> Bool in
            state.order.complete(seq, Work(completion: completion, outcome: outcome), into: &state.queue)
            guard !state.draining, state.head < state.queue.count else { return false }
            state.draining = true
            return true
        }
        guard drains else { return }
        while let next = nextWork() { next.completion(next.outcome) }
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
