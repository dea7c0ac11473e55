import Rules
import Store
import Synchronization

/// What an applied write changed for the flags' readers: which flags it can reach, and how their answers moved for
/// the write's own app version and for streams that send none. Pure, so it can be computed before the write is
/// acknowledged (`ContextStore.write`'s early work) while only its publishing waits for the disk.
struct WriteDiff: Sendable {
    /// The flags the write can reach, the same for every app version.
    let affected: AffectedFlags
    /// The changes as the write's own app version sees them.
    let changes: [FlagChange]
    /// The same changes as a request without app version sees them, when the write carried one.
    let versionless: [FlagChange]?

    init(affected: AffectedFlags, changes: [FlagChange], versionless: [FlagChange]?) {
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

extension RulesHost.Served {
    /// The write's diff under the rules served, read where they lie. The same call made on `served.rules` from
    /// the code around a write (a closure, the write's completion) copied the whole set first, every field
    /// retained and then released: in a method of the served rules, `rules` is read through `self`.
    func diff(of applied: UserStore.Applied, now: Instant, request: RequestAttributes) -> WriteDiff {
        rules.diff(of: applied, now: now, request: request)
    }
}

/// One write's `WriteDiff`, computed by the store's early work or else by the completion, never both to the end:
/// whichever comes second uses or drops the other's. Held in place by the write it belongs to (`WriteInFlight`),
/// which is why it cannot be copied: a copy would be a second, unrelated state.
struct EarlyWriteDiff: ~Copyable, Sendable {
    // Not private: a private type nested in this noncopyable struct broke the compiler (Swift 6.3, unlinked metadata).
    enum State {
        case waiting
        case computing
        case ready(WriteDiff)
        case taken
    }

    private let state = Mutex(State.waiting)

    init() {}

    /// Early work, first step: whether it is to compute the diff (the completion has not taken its turn), which it
    /// then hands to `store`. Two steps rather than one taking a closure: the work reads the write's rules in place,
    /// and read inside a closure the whole rule set was copied.
    func claim() -> Bool {
        state.withLock { state -> Bool in
            guard case .waiting = state else { return false }
            state = .computing
            return true
        }
    }

    /// The diff the early work computed after `claim`; dropped if the completion took its turn meanwhile.
    func store(_ diff: WriteDiff) {
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
