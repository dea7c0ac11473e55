import Rules
import Store

/// One write from its apply to its completion, as the engine holds it: what its completion needs (the rules it is
/// judged by, its instant, its request, its kind, the caller's completion) and its flag diff, which the store's
/// early work may compute while the write's fsync is out.
///
/// One object a write, so that each closure handed to the store captures this one reference, which then serves as
/// the closure's context: a completion capturing these fields had a context of its own, and the early diff was a
/// second object, two allocations a write under `--fsync always`. Immutable but for the diff's own lock.
final class WriteInFlight: Sendable {
    let engine: Engine
    /// The rules live when the write was made: its fires and its flag diff are judged by them alike.
    let served: RulesHost.Served
    let now: Instant
    /// Made once per write (its version parsed once) for the fires, the flag diff and the timekeeper.
    let request: RequestAttributes
    let kind: Engine.WriteKind
    let completion: @Sendable (Result<WriteOutcome, StoreError>) -> Void
    let diff = EarlyWriteDiff()

    init(
        engine: Engine, served: RulesHost.Served, now: Instant, request: RequestAttributes, kind: Engine.WriteKind,
        completion: @escaping @Sendable (Result<WriteOutcome, StoreError>) -> Void
    ) {
        self.engine = engine
        self.served = served
        self.now = now
        self.request = request
        self.kind = kind
        self.completion = completion
    }

    /// The donated event's name, for a donation.
    var event: String? {
        if case .donation(let name) = kind { name } else { nil }
    }

    /// The store's early work: the write's diff from its applied state, unless the completion came first.
    func computeDiff(of applied: UserStore.Applied) {
        guard diff.claim() else { return }
        diff.store(served.diff(of: applied, now: now, request: request))
    }

    /// The diff for the completion: the early work's, or computed now.
    func takeDiff(of applied: UserStore.Applied) -> WriteDiff {
        if let early = diff.take() { return early }
        return served.diff(of: applied, now: now, request: request)
    }

    /// The store completed the write (after its acknowledgement, or with its failure).
    func completed(_ result: Result<UserStore.Applied, StoreError>) {
        engine.completed(self, result)
    }
}
