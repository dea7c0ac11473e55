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
