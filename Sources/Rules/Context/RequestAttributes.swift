/// What the request says about itself, beyond the stored context.
///
/// A request with an app version is one reference to an immutable box: a write hands its request to the flag diff
/// (twice, once per state), the triggers, the streams and the clock, and each copy of three fields (two strings and
/// a parsed version) was an outlined copy and destroy of them all, some thirty reference counts per donation; a
/// copy now counts one. A request without one (most reads) is its user id alone, in place: a box there cost a read
/// an allocation to save the copies of one string.
public struct RequestAttributes: Sendable, Equatable {
    private final class Versioned: Sendable {
        let userID: String
        let appVersion: String
        /// `appVersion` parsed once; `nil` when it is not a version.
        let version: Version?

        init(userID: String, appVersion: String) {
            self.userID = userID
            self.appVersion = appVersion
            version = Version(appVersion)
        }
    }

    private enum Storage: Sendable {
        case userOnly(String)
        case versioned(Versioned)

        init(userID: String, appVersion: String?) {
            self = appVersion.map { .versioned(Versioned(userID: userID, appVersion: $0)) } ?? .userOnly(userID)
        }
    }

    private var storage: Storage

    public var appVersion: String? {
        get {
            switch storage {
            case .userOnly: nil
            case .versioned(let versioned): versioned.appVersion
            }
        }
        set { storage = Storage(userID: userID, appVersion: newValue) }
    }

    /// `appVersion` parsed once per request: every version test of every flag evaluated for it reads this.
    public var version: Version? {
        switch storage {
        case .userOnly: nil
        case .versioned(let versioned): versioned.version
        }
    }

    /// The user id: the default bucketing value for rollouts and splits.
    public var userID: String {
        get {
            switch storage {
            case .userOnly(let userID): userID
            case .versioned(let versioned): versioned.userID
            }
        }
        set { storage = Storage(userID: newValue, appVersion: appVersion) }
    }

    public init(userID: String, appVersion: String? = nil) {
        storage = Storage(userID: userID, appVersion: appVersion)
    }

    /// By value, as before the box: the same user and version text are the same request. The version is parsed
    /// from the text, so comparing the text compares it too.
    public static func == (lhs: RequestAttributes, rhs: RequestAttributes) -> Bool {
        lhs.userID == rhs.userID && lhs.appVersion == rhs.appVersion
    }
}
