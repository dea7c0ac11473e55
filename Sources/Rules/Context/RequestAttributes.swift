/// What the request says about itself, beyond the stored context.
///
/// One reference to an immutable box: a write hands its request to the flag diff (twice, once per state), the
/// triggers, the streams and the clock, and each copy of three fields (two strings and a parsed version) was an
/// outlined copy and destroy of them all, some thirty reference counts per donation; a copy now counts one.
public struct RequestAttributes: Sendable, Equatable {
    private final class Storage: Sendable {
        let userID: String
        let appVersion: String?
        let version: Version?

        init(userID: String, appVersion: String?) {
            self.userID = userID
            self.appVersion = appVersion
            version = appVersion.flatMap(Version.init)
        }
    }

    private var storage: Storage

    public var appVersion: String? {
        get { storage.appVersion }
        set { storage = Storage(userID: storage.userID, appVersion: newValue) }
    }
    /// `appVersion` parsed once per request: every version test of every flag evaluated for it reads this.
    public var version: Version? { storage.version }
    /// The user id: the default bucketing value for rollouts and splits.
    public var userID: String {
        get { storage.userID }
        set { storage = Storage(userID: newValue, appVersion: storage.appVersion) }
    }

    public init(userID: String, appVersion: String? = nil) {
        storage = Storage(userID: userID, appVersion: appVersion)
    }

    /// By value, as before the box: the same user and version text are the same request. The version is parsed
    /// from the text, so comparing the text compares it too.
    public static func == (lhs: RequestAttributes, rhs: RequestAttributes) -> Bool {
        lhs.storage === rhs.storage || (lhs.storage.userID == rhs.storage.userID && lhs.storage.appVersion == rhs.storage.appVersion)
    }
}
