import Rules
import Store
import Synchronization

/// What an applied write changed for the flags' readers: which flags it can reach, and how their answers moved for
/// the write's own app version and for streams that send none. Pure, so it can be computed before the write is
/// acknowledged (`ContextStore.write`'s early work) while only its publishing waits for the disk.
struct WriteDiff: Sendable {
    /// The flags the write can reach, the same for every app version.
    let affected: [Flag]
    /// The changes as the write's own app version sees them.
    let changes: [FlagChange]
    /// The same changes as a request without app version sees them, when the write carried one.
    let versionless: [FlagChange]?

    init(affected: [Flag], changes: [FlagChange], versionless: [FlagChange]?) {
        self.affected = affected
        self.changes = changes
        self.versionless = versionless
    }
}

extension RuleSet {
    /// The write's diff under this set. A method of the set, called on the served set in place: a `RuleSet`
    /// parameter was a copy of every field of the set, retained and released once per write.
    func diff(of applied: UserStore.Applied, now: Instant, request: RequestAttributes) -> WriteDiff {
        let affected = flagsAffected(from: applied.previous, to: applied.state, at: now)
        let changes = FlagChange.between(applied.previous, applied.state, in: self, now: now, request: request, affected: affected)
        // The version-less evaluation is always published (see `Timekeeper.written`).
        let versionless =
            request.appVersion == nil
            ? nil
            : FlagChange.between(
                applied.previous, applied.state, user: request.userID, in: self, now: now, appVersion: nil, affected: affected,
                written: changes)
        return WriteDiff(affected: affected, changes: changes, versionless: versionless)
    }
}

/// One write's `WriteDiff`, computed by the store's early work or else by the completion, never both to the end:
/// whichever comes second uses or drops the other's.
final class EarlyWriteDiff: Sendable {
    private enum State {
        case waiting
        case computing
        case ready(WriteDiff)
        case taken
    }

    private let state = Mutex(State.waiting)
    /// What the store's early work computes the diff from, besides the applied write: held here, so that the work
    /// handed to the store captures this one reference (no closure context of its own is allocated per write).
    private let inputs: (served: RulesHost.Served, now: Instant, request: RequestAttributes)?

    /// A diff the caller computes itself (`compute(_:)`).
    init() { inputs = nil }

    /// A write's diff, computed from its applied state by `compute(of:)`.
    init(served: RulesHost.Served, now: Instant, request: RequestAttributes) { inputs = (served, now, request) }

    /// The store's early work for the write this diff was made for.
    func compute(of applied: UserStore.Applied) {
        guard let inputs else { return }
        compute { inputs.served.rules.diff(of: applied, now: inputs.now, request: inputs.request) }
    }

    /// Early work: computes the diff unless the completion already took its turn.
    func compute(_ body: () -> WriteDiff) {
        let proceed = state.withLock { state -> Bool in
            guard case .waiting = state else { return false }
            state = .computing
            return true
        }
        guard proceed else { return }
        let diff = body()
        state.withLock { state in
            if case .computing = state { state = .ready(diff) }
        }
    }

    /// The completion: the diff if the early work finished it; from now on the early work does nothing.
    func take() -> WriteDiff? {
        state.withLock { state -> WriteDiff? in
            defer { state = .taken }
            if case .ready(let diff) = state { return diff }
            return nil
        }
    }
}
