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
    public var recent: DonationHistory

    public init(count: Int = 0, first: Mark? = nil, last: Mark? = nil, recent: DonationHistory = []) {
        self.count = count
        self.first = first
        self.last = last
        self.recent = recent
    }

    /// The same from an ascending array of instants, shared rather than copied.
    public init(count: Int = 0, first: Mark? = nil, last: Mark? = nil, recent: [Instant]) {
        self.init(count: count, first: first, last: last, recent: DonationHistory(recent))
    }

    /// Donations in `[now - window, now]` (inclusive, as every window in the rule language).
    ///
    /// `recent` is ascending, so the instants in the window are one run of it, bounded by two binary searches. A
    /// walk back from the newest counted every instant in the window, and a write evaluates its flags twice (before
    /// and after): with the history policy's thousand instants a user, one donation cost thousands of steps.
    public func count(within window: Milliseconds, now: Instant) -> Int {
        let end = Self.firstIndex(in: recent) { $0 > now }
        let start = Self.firstIndex(in: recent) { $0 >= now - window }
        return max(0, end - start)
    }

    /// The first index of an ascending history where `isPast` holds, `instants.count` when it holds nowhere;
    /// `isPast` must be false up to some index and true from there on.
    ///
    /// The ends are tried first: donations are seldom dated ahead, and a window mostly holds the whole history, so
    /// most searches end there. With ten thousand users' histories most are out of the cache when a write comes, and a
    /// binary search over a thousand instants reached some ten cache lines of one, every evaluation of a window;
    /// the newest instant is in the tail the donation just wrote, the oldest one line.
    public static func firstIndex(in instants: DonationHistory, where isPast: (Instant) -> Bool) -> Int {
        guard let newest = instants.last, isPast(newest) else { return instants.count }
        if isPast(instants[0]) { return 0 }
        // The answer is in 1...count - 1: the oldest is not past, the newest is.
        var low = 1
        var high = instants.count - 1
        while low < high {
            let middle = low + (high - low) / 2
            if isPast(instants[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
