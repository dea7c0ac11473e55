import Foundation
import Rules
import Store

/// The use cases, with no HTTP: one write path, one rules host, the clock.
///
/// Threads: every method may be called from any thread. A write's domain completion (flag diff, events,
/// metrics, the delayed triggers it schedules) runs where the store completes it — the thread that flushed the
/// write's batch, or the log's completion queue when the log's own writer did (see `AppendLog`) — always in the
/// order the user's shard applied the writes, which is what keeps a stream's events in write order. It then hands
/// the outcome to the caller's completion on that thread; callers that own a thread (a connection's loop) get back
/// to it themselves (the `ResponseSink` does). Neither the fsync policy nor a batch's size changes this contract.
public final class Engine: Sendable {
    public let rules: RulesHost
    public let store: ContextStore
    public let clock: WallClock
    public let metrics: Metrics
    /// The counters every write bumps, held so a write pays an atomic add, not a lookup by name.
    private let writeCounters: WriteCounters
    public let logger: Logger
    private let subscribers: Subscribers
    private let timekeeperBox: TimekeeperBox
    /// Reloads, snapshots, compactions, recovery and settled delayed fires (docs/api.md, "Operations").
    public let operations: OperationTracker

    public init(
        rules: RulesHost, store: ContextStore, subscribers: Subscribers, clock: WallClock, metrics: Metrics = Metrics(),
        logger: Logger
    ) {
        self.rules = rules
        self.store = store
        self.subscribers = subscribers
        self.clock = clock
        self.metrics = metrics
        writeCounters = WriteCounters(metrics)
        self.logger = logger
        timekeeperBox = TimekeeperBox()
        let operations = OperationTracker(clock: clock)
        self.operations = operations
        timekeeperBox.timekeeper = Timekeeper(
            subscribers: subscribers, rules: rules, store: store, clock: clock,
            fire: { [unowned self] mutation, request in
                write(mutation, kind: .delayedFire, appVersion: request.appVersion) { _ in }
            }, settled: { fire, outcome, at in operations.recordLazily { Self.settledFire(fire, outcome: outcome, at: at) } })
        store.observeActivity { operations.observe($0) }
    }

    var timekeeper: Timekeeper { timekeeperBox.timekeeper! }

    /// Starts the clock's thread.
    public func start() { timekeeper.start() }
    public func stop() { timekeeper.stop() }

    // MARK: - Writes

    /// What kind of write, for metrics and for what follows it.
    public enum WriteKind: Sendable {
        /// A donation of `event`: immediate triggers fire in the same logged step, delayed ones are scheduled.
        case donation(event: String)
        /// A context update, a donation reset or an erase.
        case contextUpdate
        /// A delayed trigger's fire, from the clock.
        case delayedFire
        /// A display event for a display flag (`Engine.display`).
        case display
    }

    /// `POST /v1/users/{u}/events/{e}`: the donation, then the immediate triggers it fires, in one logged step.
    public func donate(
        user: String, event: String, at: Instant, appVersion: String?, now: Instant,
        completion: @escaping @Sendable (Result<WriteOutcome, StoreError>) -> Void
    ) {
        let mutation = Mutation(user: user, now: now, actions: [.donate(event: event, at: at, appVersion: appVersion)])
        write(mutation, kind: .donation(event: event), appVersion: appVersion, completion: completion)
    }

    /// A batch of actions on one user, all or nothing.
    public func update(_ mutation: Mutation, appVersion: String?, completion: @escaping @Sendable (Result<WriteOutcome, StoreError>) -> Void) {
        write(mutation, kind: .contextUpdate, appVersion: appVersion, completion: completion)
    }

    /// The one write path: apply → log → (acknowledged) flag diff → events → schedule → metrics → completion.
    func write(
        _ mutation: Mutation, kind: WriteKind, appVersion: String?,
        completion: @escaping @Sendable (Result<WriteOutcome, StoreError>) -> Void
    ) {
        // The rules a write is judged by are those live when it was made, for its fires and its flag diff alike.
        // Held by reference: the closures below capture one pointer, not copies of the set's fields. Taken through
        // this thread's reader (a loop's, usually), not the host's lock.
        let served = rules.withServed { $0 }
        let request = RequestAttributes(userID: mutation.user, appVersion: appVersion)
        let event: String? = if case .donation(let name) = kind { name } else { nil }
        let write = WriteInFlight(engine: self, served: served, now: mutation.now, request: request, kind: kind, completion: completion)
        // The flag diff needs no disk: a store that waits for an fsync may compute it meanwhile.
        var early: (@Sendable (UserStore.Applied) -> Void)?
        if store.runsWorkWhileSyncing { early = { write.computeDiff(of: $0) } }
        // Not escaping (the store runs it before `write` returns), so its context is on this stack.
        store.write(
            mutation,
            followUp: { previous, current in
                guard let event, let current else { return [] }
                return served.rules.immediateFires(event: event, previous: previous, current: current, now: mutation.now, request: request)
                    .map { Action.recordTriggerFire(trigger: $0.key, at: mutation.now) }
            }, early: early
        ) { write.completed($0) }
    }

    /// A write's completion, where the store completes it (see the threading note above).
    func completed(_ write: WriteInFlight, _ result: Result<UserStore.Applied, StoreError>) {
        switch result {
        case .failure(let error):
            write.completion(.failure(error))
        case .success(let applied):
            let diff = write.takeDiff(of: applied)
            var fired: [(trigger: String, at: Instant)] = []
            for case .triggerFired(let trigger, let at) in applied.effects { fired.append((trigger, at)) }
            switch write.kind {
            case .donation: writeCounters.donations.increment()
            case .contextUpdate: writeCounters.contextWrites.increment()
            case .delayedFire: break
            case .display: writeCounters.displayEvents.increment()
            }
            if !fired.isEmpty { writeCounters.triggerFires.increment(by: fired.count) }
            timekeeper.written(
                request: write.request, applied: applied, diff: diff, served: write.served, event: write.event, now: write.now)
            write.completion(.success(WriteOutcome(applied: applied, changes: diff.changes, fired: fired)))
        }
    }

    // MARK: - Rules

    /// What a reload did.
    public enum ReloadOutcome: Sendable {
        case loaded(RuleSet)
        case failed(RuleSetError)
        /// Another reload was loading; nothing changed.
        case busy
    }

    /// The one reload, for SIGHUP and the admin route alike: load, validate whole, swap, count, log, and tell
    /// subscribers (a `rules` event, then the flag changes it causes for users with live streams).
    @discardableResult
    public func reloadRules() -> ReloadOutcome {
        tracked { reloadRules(from: rules.reload()) }
    }

    /// The same reload with a candidate from elsewhere than the host's path (a scenario's `reload` step).
    @discardableResult
    public func reloadRules(using load: () -> Result<RuleSet, RuleSetError>) -> ReloadOutcome {
        tracked { reloadRules(from: rules.reload(using: load)) }
    }

    private func reloadRules(from outcome: Result<RuleSet, RuleSetError>?) -> ReloadOutcome {
        guard let result = outcome else {
            logger.warn("rules reload skipped: another reload is running")
            return .busy
        }
        switch result {
        case .success(let set):
            metrics.increment("rule_reloads_total{result=\"loaded\"}")
            logger.info("rules reloaded", ["version": .string(set.version), "flags": .int(set.flagKeys.count)])
            timekeeper.rulesReloaded(version: set.version)
            return .loaded(set)
        case .failure(let error):
            metrics.increment("rule_reloads_total{result=\"failed\"}")
            logger.warn("rules reload failed: previous rules keep serving", ["errors": .int(error.errors.count)])
            return .failed(error)
        }
    }

    // MARK: - Subscriptions and the clock

    /// A stream for `user` opened: schedule the user's next clock-driven change.
    public func subscribed(user: String) { timekeeper.subscribed(user: user) }

    /// Runs what is due at `now`; the clock's thread calls it, tests call it with a virtual clock.
    public func runDue(now: Instant) { timekeeper.runDue(now: now) }

    public var scheduledJobs: Int { timekeeper.scheduledJobs }

    /// The earliest instant the clock has work for: a clock-driven re-evaluation or a delayed fire.
    public var nextDue: Instant? { timekeeper.nextDue() }

    /// Delayed trigger fires not yet due, earliest first: `(user, trigger, due)`.
    public var pendingFires: [(user: String, trigger: String, due: Instant)] {
        timekeeper.pendingFires.map { ($0.user, $0.trigger, $0.due) }
    }

    /// The evaluation input for a user at an instant.
    public func input(_ context: UserContext, user: String, now: Instant, appVersion: String?) -> EvaluationInput {
        EvaluationInput(context: context, now: now, request: RequestAttributes(userID: user, appVersion: appVersion))
    }
}

/// Lets the timekeeper's delayed fires call back into the engine that owns it. Written once in `Engine.init`.
private final class TimekeeperBox: @unchecked Sendable {
    var timekeeper: Timekeeper?
}
