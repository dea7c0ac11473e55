import Rules
import Store
import Synchronization

/// Lets the clock find flag changes for webhooks, not only for open streams. Wraps the stream hub as the engine's
/// subscribers: every user counts as heard (so each write schedules the user's next clock-driven change), and for
/// the version-less evaluation it adds one more "last seen" view: the watched flags as they were at the user's last
/// write or re-evaluation. Only the instant is kept per user, never the values: the context has not changed since
/// (a write would have moved the instant), so evaluating it at that instant gives the values then.
public final class WebhookFlagWatch: Subscribers {
    private let inner: any Subscribers
    private let rules: RulesHost
    private let store: any ContextStore
    private let clock: WallClock
    private let flags: Set<String>?
    private let baselines = Mutex<[ByteKey: Instant]>([:])

    /// `flags`: the flags some webhook watches (`nil`: all).
    public init(wrapping inner: any Subscribers, rules: RulesHost, store: any ContextStore, clock: WallClock, flags: Set<String>?) {
        self.inner = inner
        self.rules = rules
        self.store = store
        self.clock = clock
        self.flags = flags
    }

    public func publish(_ event: DomainEvent) { inner.publish(event) }
    public func hasSubscribers(for user: String) -> Bool { true }
    public func wantsContext(for user: String) -> Bool { inner.wantsContext(for: user) }
    public func subscribedUsers() -> [String] { inner.subscribedUsers() }
    public func appVersions(hearing user: String) -> [String?] { inner.appVersions(hearing: user) }
    public func interest(in user: String) -> ListenerInterest {
        var interest = inner.interest(in: user)
        interest.hasSubscribers = true
        return interest
    }

    public func written(user: String, now: Instant) {
        baselines.withLock { $0[ByteKey(user)] = now }
        inner.written(user: user, now: now)
    }

    /// An erased user's instant goes with them: kept, a loop that created and erased users grew the table by one
    /// entry a user for good, past any cap on users (found in review).
    public func erased(user: String) {
        baselines.withLock { $0[ByteKey(user)] = nil }
        inner.erased(user: user)
    }

    /// Users with a baseline (for tests).
    var watchedUsers: Int { baselines.withLock { $0.count } }

    public func lastSeen(user: String, appVersion: String?) -> [[ByteKey: JSONValue]] {
        var seen = inner.lastSeen(user: user, appVersion: appVersion)
        guard appVersion == nil else { return seen }
        let now = clock.now()
        let key = ByteKey(user)
        guard let baseline = baselines.withLock({ $0.updateValue(now, forKey: key) }) else { return seen }
        let ruleSet = rules.current
        let input = EvaluationInput(
            context: store.context(of: user) ?? UserContext(), now: baseline, request: RequestAttributes(userID: user, appVersion: nil))
        var values: [ByteKey: JSONValue] = [:]
        for flagKey in ruleSet.flagKeys where flags?.contains(flagKey) ?? true {
            guard let flag = ruleSet.flags[flagKey] else { continue }
            values[ByteKey(flagKey)] = flag.evaluate(input).value ?? .null
        }
        seen.append(values)
        return seen
    }
}
