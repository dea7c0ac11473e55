/// What the request says about itself, beyond the stored context.
public struct RequestAttributes: Sendable, Equatable {
    public var appVersion: String? {
        didSet { version = appVersion.flatMap(Version.init) }
    }
    /// `appVersion` parsed once per request: every version test of every flag evaluated for it reads this.
    public private(set) var version: Version?
    /// The user id: the default bucketing value for rollouts and splits.
    public var userID: String

    public init(userID: String, appVersion: String? = nil) {
        self.userID = userID
        self.appVersion = appVersion
        version = appVersion.flatMap(Version.init)
    }
}
