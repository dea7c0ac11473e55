import CLinux
import Foundation
import Rules
import Store
import Synchronization

/// The clock and the events of acknowledged writes: turns writes, rule reloads and the passing of time into domain
/// events for subscribers (see docs/api.md, "Live updates") and fires delayed triggers. One thread sleeps until the
/// next scheduled instant; it never polls all users. (Heartbeats are the connections' own: each idle stream gets
/// one from its loop's tick.)
final class Timekeeper: @unchecked Sendable {
    let subscribers: Subscribers
    let rules: RulesHost
    let store: ContextStore
    let clock: WallClock
    /// Delayed fires go through the engine's one write path.
    private let fire: @Sendable (Mutation, RequestAttributes) -> Void
    private let scheduler = Mutex(ClockScheduler())
    /// Delayed fires waiting for their instant, with the donation's request for the re-check. Never held with
    /// `scheduler`: a write schedules a fire under this lock alone.
    private let pending = Mutex(PendingFires())
    private let wake = NSCondition()
    /// When the thread plans to wake next (guarded by `wake`): new jobs due later need no signal.
    private var plannedWake: Instant?
    private var running = true
    /// Told how each delayed fire ended when it came due: fired, or skipped and why (the operations view).
    private let settled: (@Sendable (PendingFires.Fire, _ outcome: String, _ at: Instant) -> Void)?

    init(
        subscribers: Subscribers, rules: RulesHost, store: ContextStore, clock: WallClock,
        fire: @escaping @Sendable (Mutation, RequestAttributes) -> Void,
        settled: (@Sendable (PendingFires.Fire, _ outcome: String, _ at: Instant) -> Void)? = nil
    ) {
        self.settled = settled
        self.subscribers = subscribers
        self.rules = rules
        self.store = store
        self.clock = clock
        self.fire = fire
    }

    func start() {
        let thread = Thread { [self] in
            specd_name_current_thread("specd-clock")
            run()
        }
        thread.start()
    }

    func stop() {
        wake.withLock {
            running = false
            wake.signal()
        }
    }

    // MARK: - Inputs

    /// After an acknowledged write: flag events for what changed, trigger events for what fired, and the user's
    /// clock-driven schedule refreshed.
    /// `served` by reference: a `RuleSet` parameter taken from it was a copy of every field of the set, retained and
    /// released once per write.
    func written(
        request: RequestAttributes, applied: UserStore.Applied, diff: WriteDiff, served: RulesHost.Served, event: String?, now: Instant
    ) {
        let user = request.userID
        let appVersion = request.appVersion
        subscribers.written(user: user, now: now)
        let interest = subscribers.interest(in: user)
        // The write's own changes, then each other version's: a stream hears the answers of its app version. The
        // version-less evaluation is always made, so streams without a version (browsers' EventSource cannot send
        // one) can resume from the retained events whoever wrote. In that order, without an array of versions.
        func publishChanges(heardWith version: String?) {
            let versionChanges: [FlagChange]
            if version == appVersion {
                versionChanges = diff.changes
            } else if version == nil, let versionless = diff.versionless {
                versionChanges = versionless
            } else {
                versionChanges = FlagChange.between(
                    applied.previous, applied.state, user: user, in: served.rules, now: now, appVersion: version, affected: diff.affected,
                    written: diff.changes)
            }
            for change in versionChanges {
                subscribers.publish(
                    .flagChanged(
                        user: user, key: change.key, evaluation: change.current, previous: change.previous.value, seq: applied.seq,
                        appVersion: version))
            }
        }
        publishChanges(heardWith: appVersion)
        if appVersion != nil { publishChanges(heardWith: nil) }
        for version in interest.versions where version != nil && version != appVersion { publishChanges(heardWith: version) }
        for effect in applied.effects {
            if case .triggerFired(let trigger, let at) = effect {
                subscribers.publish(.triggerFired(user: user, trigger: trigger, at: at, seq: applied.seq))
            }
            if case .erased = effect {
                scheduler.withLock { $0.cancel(.reevaluate(user: ByteKey(user))) }
                subscribers.erased(user: user)
            }
        }
        if interest.wantsContext {
            subscribers.publish(.contextChanged(user: user, context: applied.state, seq: applied.seq))
        }
        if let event, let state = applied.state {
            scheduleDelayedTriggers(
                user: user, event: event, previous: applied.previous, current: state, now: now, request: request, served: served)
        }
        // An erase may have ended what made the user heard (the webhooks' baseline): asked again then.
        if interest.hasSubscribers, applied.state != nil || subscribers.hasSubscribers(for: user) {
            reschedule(user: user, context: applied.state ?? UserContext(), now: now)
        }
    }

    /// The write's version first, then `nil`, then every other version a stream of the user listens with.
    private func versions(hearing user: String, writtenWith appVersion: String?) -> [String?] {
        var versions: [String?] = []
        // Room for the usual two (the write's version and none) and a stream's: no regrowth.
        versions.reserveCapacity(4)
        versions.append(appVersion)
        if appVersion != nil { versions.append(nil) }
        for version in subscribers.appVersions(hearing: user) where !versions.contains(version) { versions.append(version) }
        return versions
    }

    /// A new set went live: one `rules` event, then the flag changes it causes for users with live streams.
    func rulesReloaded(version: String) {
        subscribers.publish(.rulesReloaded(version: version))
        for user in subscribers.subscribedUsers() { reevaluate(user: user) }
    }

    func subscribed(user: String) {
        let context = store.context(of: user) ?? UserContext()
        reschedule(user: user, context: context, now: clock.now())
    }

    // MARK: - Clock

    /// The earliest instant any of the user's streams may see an answer change with no write, over the app
    /// versions they listen with.
    private func reschedule(user: String, context: UserContext, now: Instant) {
        let ruleSet = rules.current
        var earliest: Instant?
        for version in versions(hearing: user, writtenWith: nil) {
            let input = EvaluationInput(context: context, now: now, request: RequestAttributes(userID: user, appVersion: version))
            for key in ruleSet.flagKeys {
                if let next = ruleSet.flags[key]!.nextChange(input), earliest == nil || next < earliest! { earliest = next }
            }
        }
        let sweep = scheduler.withLock { scheduler -> Bool in
            if let earliest {
                scheduler.schedule(.reevaluate(user: ByteKey(user)), at: earliest)
            } else {
                scheduler.cancel(.reevaluate(user: ByteKey(user)))
            }
            guard scheduler.count >= scheduler.sweepAt else { return false }
            // One sweep at a time: the next threshold is set when this one is done.
            scheduler.sweepAt = .max
            return true
        }
        if let earliest { signalIfEarlier(earliest) }
        if sweep { dropUnheardJobs() }
    }

    /// Drops the re-evaluations of users nobody hears any more. A user's job is only rescheduled while someone
    /// hears them, but until it comes due it stays, and that may be months away (a date range opening): every stream
    /// opened for a made-up user id left one behind, without bound (found in review). Asked outside the
    /// scheduler's lock (the hub takes its own); a job scheduled again meanwhile is kept.
    private func dropUnheardJobs() {
        let jobs = scheduler.withLock { $0.jobs }
        let unheard = jobs.filter { job, _ in
            switch job {
            case .reevaluate(let user): !subscribers.hasSubscribers(for: user.string)
            }
        }
        scheduler.withLock { scheduler in
            for (job, token) in unheard { scheduler.cancel(job, ifStill: token) }
            scheduler.sweepAt = max(1024, scheduler.count * 2)
        }
    }

    /// Re-evaluates a user's flags now, for each app version its streams listen with, and sends what differs from
    /// what each stream of that version last saw.
    func reevaluate(user: String) {
        let ruleSet = rules.current
        let now = clock.now()
        let context = store.context(of: user) ?? UserContext()
        for version in versions(hearing: user, writtenWith: nil) {
            let input = EvaluationInput(context: context, now: now, request: RequestAttributes(userID: user, appVersion: version))
            let seen = subscribers.lastSeen(user: user, appVersion: version)
            guard !seen.isEmpty else { continue }
            for key in ruleSet.flagKeys {
                let seenKey = ByteKey(key)
                let evaluation = ruleSet.flags[key]!.evaluate(input)
                let value = evaluation.value ?? .null
                if let previous = seen.lazy.compactMap({ $0[seenKey] }).first(where: { $0 != value }) {
                    subscribers.publish(
                        .flagChanged(user: user, key: key, evaluation: evaluation, previous: previous, seq: nil, appVersion: version))
                }
            }
        }
        if subscribers.hasSubscribers(for: user) { reschedule(user: user, context: context, now: now) }
    }

    private func scheduleDelayedTriggers(
        user: String, event: String, previous: UserContext?, current: UserContext, now: Instant, request: RequestAttributes,
        served: RulesHost.Served
    ) {
        for trigger in served.rules.listeners(of: event) {
            guard let delay = trigger.delay, trigger.shouldFire(previous: previous, current: current, now: now, request: request)
            else { continue }
            let due = now + delay
            let (id, _) = pending.withLock {
                $0.schedule(user: user, trigger: trigger.key, due: due, request: request, mode: trigger.delayMode, scheduledAt: now)
            }
            if id != nil { signalIfEarlier(due) }
        }
    }

    /// Wakes the thread only when a job is due before it planned to wake anyway (no wake-up per write).
    private func signalIfEarlier(_ instant: Instant) {
        wake.withLock {
            if plannedWake == nil || instant < plannedWake! {
                plannedWake = instant
                wake.signal()
            }
        }
    }

    /// The delay ended: fire only if the spec still holds and no other fire claimed the throttle meanwhile.
    func fireDelayed(_ pendingFire: PendingFires.Fire, now: Instant) {
        let outcome: String
        if let trigger = rules.current.triggers[pendingFire.trigger] {
            if let context = store.context(of: pendingFire.user) {
                if !trigger.when.holds(EvaluationInput(context: context, now: now, request: pendingFire.request)) {
                    outcome = "skipped: the spec no longer holds"
                } else if trigger.isThrottled(context, now: now) {
                    outcome = "skipped: throttled"
                } else {
                    outcome = "fired"
                    fire(
                        Mutation(user: pendingFire.user, now: now, actions: [.recordTriggerFire(trigger: pendingFire.trigger, at: now)]),
                        pendingFire.request)
                }
            } else {
                outcome = "skipped: the user was erased"
            }
        } else {
            outcome = "skipped: the trigger is no longer in the rules"
        }
        settled?(pendingFire, outcome, now)
    }

    /// Takes a pending fire out before it comes due (an operator cancelled it); `nil` when it is not pending (it
    /// fired, was replaced, or never existed).
    func cancelFire(_ id: Int) -> PendingFires.Fire? {
        pending.withLock { $0.take(id) }
    }

    /// Runs what is due at `now`; the thread calls it, tests call it with a virtual clock.
    /// Both kinds of job in the order they came due, a user's re-evaluation before a fire due at the same instant.
    func runDue(now: Instant) {
        let reevaluations = scheduler.withLock { $0.popDue(now: now) }
        let fires = pending.withLock { $0.popDue(now: now) }
        var next = 0
        for (due, id) in fires {
            while next < reevaluations.count, reevaluations[next].at <= due {
                run(reevaluations[next].job)
                next += 1
            }
            // Taken only now: cancelled or replaced meanwhile, it does not fire.
            if let fire = pending.withLock({ $0.take(id) }) { fireDelayed(fire, now: now) }
        }
        for job in reevaluations[next...] { run(job.job) }
    }

    private func run(_ job: ClockScheduler.Job) {
        switch job {
        case .reevaluate(let user): reevaluate(user: user.string)
        }
    }

    /// The earliest instant something is scheduled for (a scenario run moves its clock there next).
    func nextDue() -> Instant? {
        let reevaluation = scheduler.withLock { $0.nextDue() }
        let fire = pending.withLock { $0.nextDue() }
        guard let reevaluation, let fire else { return reevaluation ?? fire }
        return min(reevaluation, fire)
    }

    /// Delayed fires not yet due, earliest first.
    var pendingFires: [PendingFires.Fire] { pending.withLock { $0.all } }

    /// Qualifying donations whose fire was not scheduled: their (user, trigger) had `PendingFires.maxPerOwner`.
    var droppedFires: Int { pending.withLock { $0.dropped } }

    var scheduledJobs: Int { scheduler.withLock { $0.count } + pending.withLock { $0.count } }

    private func run() {
        while true {
            wake.lock()
            guard running else {
                wake.unlock()
                return
            }
            let now = clock.now()
            let next = nextDue()
            // With nothing scheduled, sleep until a new job signals (bounded, so a lost signal costs at most this).
            var wait = 60.0
            if let next { wait = min(wait, Double(next.milliseconds - now.milliseconds) / 1000) }
            plannedWake = now + Int64(max(0, wait) * 1000)
            if wait > 0 { _ = wake.wait(until: Date().addingTimeInterval(wait)) }
            plannedWake = nil
            wake.unlock()
            runDue(now: clock.now())
        }
    }
}
