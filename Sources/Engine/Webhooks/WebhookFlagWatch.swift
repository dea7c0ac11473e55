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
    /// Every stored user is heard (each has a baseline from its last write, or from the watch put on the users
    /// recovered at start); an erased user, or one never written, only through a stream. Counting those as heard
    /// kept a clock job, and then a baseline, for each of them for good (found in review).
    public func hasSubscribers(for user: String) -> Bool {
        baselines.withLock { $0[ByteKey(user)] != nil } || inner.hasSubscribers(for: user)
    }
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
        // Only a baseline that exists moves: inserted here, an erased user's (or a made-up stream user's) came back.
        let baseline = baselines.withLock { table -> Instant? in
            guard let index = table.index(forKey: key) else { return nil }
            defer { table.values[index] = now }
            return table.values[index]
        }
        guard let baseline else { return seen }
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
