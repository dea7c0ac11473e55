/// What the request says about itself, beyond the stored context.
public struct RequestAttributes: Sendable, Equatable {
    public var appVersion: String?
    /// The user id: the default bucketing value for rollouts and splits.
    public var userID: String

    public init(userID: String, appVersion: String? = nil) {
        self.userID = userID
        self.appVersion = appVersion
    }
}
