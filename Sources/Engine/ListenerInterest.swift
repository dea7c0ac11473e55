/// What one write to a user needs to know of the streams that hear it, asked once per write: three questions
/// asked apart took the hub's lock and hashed the user three times on every donation, listened to or not.
public struct ListenerInterest: Sendable, Equatable {
    /// `Subscribers.appVersions(hearing:)`: the app versions of the streams that hear the user, each once.
    public var versions: [String?]
    /// `Subscribers.wantsContext(for:)`.
    public var wantsContext: Bool
    /// `Subscribers.hasSubscribers(for:)`.
    public var hasSubscribers: Bool

    public init(versions: [String?], wantsContext: Bool, hasSubscribers: Bool) {
        self.versions = versions
        self.wantsContext = wantsContext
        self.hasSubscribers = hasSubscribers
    }
}
