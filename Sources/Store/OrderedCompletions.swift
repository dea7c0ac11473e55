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
        /// The drainer's emptied buffer, kept for its next drain: each drain would otherwise allocate one.
        var spare: [Work] = []
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
            guard !state.draining, !state.queue.isEmpty else { return false }
            state.draining = true
            return true
        }
        guard drains else { return }
        // The drainer takes the whole queue at a time and runs it where it lies: handed out one at a time, each
        // completion was copied out of the queue (its closure and its outcome retained, later released) and cost
        // a lock of its own. Completions released meanwhile queue behind, for the next take.
        var batch: [Work] = []
        while take(into: &batch) {
            batch.withUnsafeBufferPointer { works in
                for index in works.indices { works[index].completion(works[index].outcome) }
            }
            batch.removeAll(keepingCapacity: true)
        }
    }

    /// Swaps the queued work into `batch` (empty), or ends the drain when nothing is queued, keeping the emptied
    /// buffer for the next drain.
    private func take(into batch: inout [Work]) -> Bool {
        state.withLock { state -> Bool in
            guard !state.queue.isEmpty else {
                state.draining = false
                if state.spare.capacity < batch.capacity { swap(&state.spare, &batch) }
                return false
            }
            if batch.capacity == 0 { swap(&batch, &state.spare) }
            swap(&state.queue, &batch)
            return true
        }
    }
}
