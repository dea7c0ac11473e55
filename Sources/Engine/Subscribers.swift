import Rules

/// Who listens: the API's stream hub. The engine asks who is interested so it only computes what someone hears.
/// Called from whichever thread acknowledged a write or runs the clock; implementations are thread-safe.
public protocol Subscribers: AnyObject, Sendable {
    func publish(_ event: DomainEvent)
    func hasSubscribers(for user: String) -> Bool
    /// Whether a context stream for the user is open (or may resume): context events cost an encoding each.
    func wantsContext(for user: String) -> Bool
    func subscribedUsers() -> [String]
    /// The app versions (`X-App-Version` at subscription; `nil`: none) of the streams that hear `user`, its own and
    /// global ones, each once: flag changes are evaluated once per version.
    func appVersions(hearing user: String) -> [String?]
    /// For each of the user's streams of that app version, the last value it saw of each flag: the clock and
    /// reloads send only what differs.
    func lastSeen(user: String, appVersion: String?) -> [[ByteKey: JSONValue]]
    func written(user: String, now: Instant)
    /// The write just announced by `written(user:now:)` erased the user: what is kept per user can go.
    func erased(user: String)
    /// The answers of `appVersions(hearing:)`, `wantsContext(for:)` and `hasSubscribers(for:)` at once.
    func interest(in user: String) -> ListenerInterest
}

extension Subscribers {
    /// A write to `user` at `now` was acknowledged (before its events are published). Most subscribers need not
    /// know; the webhooks' flag watch keeps the instant.
    public func written(user: String, now: Instant) {}

    public func erased(user: String) {}

    public func interest(in user: String) -> ListenerInterest {
        ListenerInterest(versions: appVersions(hearing: user), wantsContext: wantsContext(for: user), hasSubscribers: hasSubscribers(for: user))
    }
}
