/// One applied write until its completion runs: what the log's early work and its acknowledgement need, held in one
/// object. Each closure `Database.write` hands the log then captures this one reference, which serves as the
/// closure's context: two closures capturing the applied write, its completion and its order were two context
/// allocations a write. Immutable, so any thread may hold it.
final class PendingWrite: Sendable {
    let applied: UserStore.Applied
    private let order: OrderedCompletions
    private let completion: OrderedCompletions.Completion
    private let early: (@Sendable (UserStore.Applied) -> Void)?

    init(
        applied: UserStore.Applied, order: OrderedCompletions, completion: @escaping OrderedCompletions.Completion,
        early: (@Sendable (UserStore.Applied) -> Void)?
    ) {
        self.applied = applied
        self.order = order
        self.completion = completion
        self.early = early
    }

    /// The work the caller asked to run while the write's fsync is out (`ContextStore.write`'s `early`).
    func runEarly() {
        early?(applied)
    }

    /// The log acknowledged the write, or failed it: its completion joins the shard's order.
    func acknowledged(_ result: Result<UInt64, StorageFailure>) {
        switch result {
        case .success: order.complete(applied.seq, completion, .success(applied))
        case .failure(let failure): order.complete(applied.seq, completion, .failure(.storageFailed(failure)))
        }
    }
}
