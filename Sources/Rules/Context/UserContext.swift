/// What specd knows of one user (DESIGN §1): the input of every evaluation.
public struct UserContext: Sendable, Equatable {
    public var launchedAt: Instant?
    /// IANA zone name; `nil` means UTC.
    public var timeZone: String?
    public var counters: CompactMap<Int> = [:]
    public var events: CompactMap<Instant> = [:]
    public var flags: CompactMap<Bool> = [:]
    public var attributes: CompactMap<JSONValue> = [:]
    public var segments: SegmentSet = []
    public var donations: CompactMap<DonationSummary> = [:]
    /// When each trigger last fired for this user (throttles survive rule replacement).
    public var triggerFires: CompactMap<Instant> = [:]

    public init() {}
}

/// Count, first and last donation of one event, plus a bounded recent history for windows.
public struct DonationSummary: Sendable, Equatable {
    public struct Mark: Sendable, Equatable {
        public var at: Instant
        public var appVersion: String?

        public init(at: Instant, appVersion: String?) {
            self.at = at
            self.appVersion = appVersion
        }
    }

    public var count: Int
    public var first: Mark?
    public var last: Mark?
    /// Ascending donation instants, oldest first, bounded by the store's history policy.
    public var recent: [Instant]

    public init(count: Int = 0, first: Mark? = nil, last: Mark? = nil, recent: [Instant] = []) {
        self.count = count
        self.first = first
        self.last = last
        self.recent = recent
    }

    /// Donations in `[now - window, now]` (inclusive, as every window in the rule language).
    public func count(within window: Milliseconds, now: Instant) -> Int {
        let start = now - window
        var total = 0
        for instant in recent.reversed() {
            if instant > now { continue }
            if instant < start { break }
            total += 1
        }
        return total
    }
}

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
