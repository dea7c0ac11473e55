import Rules
import Testing

/// `history`: buckets per local calendar period in the user's zone, the current partial period last.
@Suite struct HistoryTests {
    static func user(_ instants: [String], zone: String? = "Europe/Paris") -> UserContext {
        context {
            $0.timeZone = zone
            let times = instants.map(at).sorted()
            $0.donations["e"] = DonationSummary(count: times.count, recent: times)
        }
    }

    static func spec(_ stat: String, _ op: String, _ value: String, over: String = "7d", per: String = "day") -> String {
        #"{"history": {"event": "e", "over": "\#(over)", "per": "\#(per)", "stat": "\#(stat)", "\#(op)": \#(value)}}"#
    }

    /// Now: Tuesday 2026-03-10 12:00 UTC (13:00 in Paris). Seven days: 03-04 … 03-10 in Paris.
    static let week = user([
        "2026-03-10T08:00:00Z", "2026-03-10T09:00:00Z", // today: 2
        "2026-03-09T22:59:00Z", // 23:59 Paris on the 9th: yesterday
        "2026-03-09T23:00:00Z", // 00:00 Paris on the 10th: today (3)
        "2026-03-06T12:00:00Z", "2026-03-06T13:00:00Z", "2026-03-06T14:00:00Z", "2026-03-06T15:00:00Z", // 4
        "2026-03-03T22:59:00Z", // 23:59 Paris on the 3rd: just outside the week
        "2026-03-10T12:00:00.001Z" // after now: not yet
    ])

    static let cases: [NodeCase] = [
        // Counts oldest first: [0, 0, 4, 0, 0, 1, 3]; sorted [0, 0, 0, 0, 1, 3, 4].
        NodeCase("max", spec("max", "eq", "4"), week, true),
        NodeCase("min", spec("min", "eq", "0"), week, true),
        NodeCase("activePeriods", spec("activePeriods", "eq", "3"), week, true),
        NodeCase("mean = 8/7, gt 1.14", spec("mean", "gt", "1.14"), week, true),
        NodeCase("mean = 8/7, lt 1.15", spec("mean", "lt", "1.15"), week, true),
        NodeCase("median: rank 4 of 7 is 0", spec("median", "eq", "0"), week, true),
        NodeCase("p90: rank 7 of 7 is 4", spec("p90", "eq", "4"), week, true),
        NodeCase("over 8d reaches the 3rd", spec("activePeriods", "eq", "4", over: "8d"), week, true),
        NodeCase("per week: last ISO week holds 5", spec("max", "eq", "5", over: "2w", per: "week"), week, true),
        NodeCase("per week: this one (from Monday 03-09 in Paris) holds 4", spec("min", "eq", "4", over: "2w", per: "week"), week, true),
        NodeCase("per hour: 13:00 Paris holds 0", spec("activePeriods", "eq", "0", over: "1h", per: "hour"), week, true),
        NodeCase("per month: March holds 9", spec("max", "eq", "9", over: "30d", per: "month"), week, true),
        NodeCase("empty history: every bucket 0", spec("max", "eq", "0"), context { $0.timeZone = "Europe/Paris" }, true),
        NodeCase("empty history: mean 0", spec("mean", "lt", "0.5"), context(), true),
        NodeCase("empty history: activePeriods 0", spec("activePeriods", "gte", "1"), context(), false),
        NodeCase(
            "UTC when the user has no zone", spec("max", "eq", "2"),
            user(["2026-03-09T23:00:00Z", "2026-03-10T01:00:00Z", "2026-03-10T02:00:00Z"], zone: nil), true)
    ]

    @Test(arguments: cases) func statistic(_ node: NodeCase) throws { try RicherSpecTests.check(node) }

    /// Median and p90 by nearest rank (`⌈q × n / 100⌉`), on even and odd numbers of periods. Paris days:
    /// 03-07: 3, 03-08: 0, 03-09: 2, 03-10 (today): 1.
    @Test(arguments: [
        ("2d", "median", 1), // [2, 1] sorted [1, 2]: rank 1, the lower middle
        ("2d", "p90", 2), // rank 2
        ("4d", "median", 1), // sorted [0, 1, 2, 3]: rank 2
        ("4d", "p90", 3), // rank 4
        ("10d", "median", 0), // sorted [0 × 7, 1, 2, 3]: rank 5
        ("10d", "p90", 2), // rank 9
        ("1d", "median", 1) // one period: rank 1
    ])
    func percentiles_nearestRank(over: String, stat: String, expected: Int) throws {
        let user = Self.user([
            "2026-03-07T10:00:00Z", "2026-03-07T11:00:00Z", "2026-03-07T12:00:00Z", "2026-03-09T10:00:00Z", "2026-03-09T11:00:00Z",
            "2026-03-10T10:00:00Z"
        ])
        let spec = try compileSpec(Self.spec(stat, "eq", String(expected), over: over))
        #expect(spec.holds(input(user)))
        #expect(!(try compileSpec(Self.spec(stat, "eq", String(expected + 1), over: over))).holds(input(user)))
    }

    /// A 23-hour and a 25-hour local day are one bucket each.
    @Test(arguments: [
        // Paris, spring forward on 2026-03-29: the day runs 03-28T23:00Z … 03-29T22:00Z (23 h).
        ("Europe/Paris", ["2026-03-28T23:00:00Z", "2026-03-29T21:59:59Z"], "2026-03-29T21:59:59.999Z", 2),
        ("Europe/Paris", ["2026-03-28T22:59:59Z", "2026-03-29T22:00:00Z"], "2026-03-29T22:00:00Z", 1),
        // New York, fall back on 2026-11-01: the day runs 11-01T04:00Z … 11-02T05:00Z (25 h).
        ("America/New_York", ["2026-11-01T04:00:00Z", "2026-11-02T04:59:59Z"], "2026-11-02T04:59:59.999Z", 2),
        ("America/New_York", ["2026-11-01T03:59:59Z", "2026-11-02T05:00:00Z"], "2026-11-02T05:00:00Z", 1)
    ])
    func dstDays_areOneBucket(zone: String, instants: [String], now: String, today: Int) throws {
        let spec = try compileSpec(Self.spec("max", "eq", String(today), over: "1d"))
        #expect(spec.holds(input(Self.user(instants, zone: zone), at(now))))
    }

    @Test func nextChange_isTheLocalMidnightWhenABusyDayLeaves() throws {
        // max over 2 days >= 2: holds while 03-09 (Paris) is in the window, until 03-11 00:00 Paris = 03-10T23:00Z.
        let spec = try compileSpec(Self.spec("max", "gte", "2", over: "2d"))
        let user = Self.user(["2026-03-09T10:00:00Z", "2026-03-09T11:00:00Z"])
        #expect(spec.holds(input(user)))
        #expect(spec.nextChange(input(user)) == at("2026-03-10T23:00:00Z"))
        #expect(spec.holds(input(user, at("2026-03-10T22:59:59.999Z"))))
        #expect(!spec.holds(input(user, at("2026-03-10T23:00:00Z"))))
    }

    @Test func nextChange_whenTheLastHourOfTheDayRepeats_isTheRealMidnight() throws {
        // São Paulo, 2018-02-18: at 00:00 BRST (02:00 UTC) clocks went back to 23:00 BRT on the 17th, so the 17th
        // ends at 03:00 UTC. Donations at its first instant and in its repeated last hour share one bucket.
        let spec = try compileSpec(Self.spec("max", "eq", "2", over: "1d"))
        let user = Self.user(["2018-02-17T02:00:00Z", "2018-02-18T02:30:00Z"], zone: "America/Sao_Paulo")
        let now = at("2018-02-18T02:45:00Z")
        #expect(spec.holds(input(user, now)))
        #expect(spec.nextChange(input(user, now)) == at("2018-02-18T03:00:00Z"))
        #expect(spec.holds(input(user, at("2018-02-18T02:59:59.999Z"))))
    }

    @Test func nextChange_aFutureDonationEnters() throws {
        let spec = try compileSpec(Self.spec("activePeriods", "gte", "1"))
        let user = Self.user(["2026-03-12T08:00:00Z"])
        #expect(!spec.holds(input(user)))
        #expect(spec.nextChange(input(user)) == at("2026-03-12T08:00:00Z"))
    }

    @Test func nextChange_emptyHistory_isNone() throws {
        #expect(try compileSpec(Self.spec("mean", "gte", "1")).nextChange(input(context())) == nil)
    }

    @Test func hugeHistory_andExtremeInstants_doNotTrap() throws {
        let spec = try compileSpec(Self.spec("p90", "gte", "1", over: "1w", per: "hour"))
        let user = context {
            $0.timeZone = "Australia/Lord_Howe"
            $0.donations["e"] = DonationSummary(
                count: Int.max, recent: [Instant(milliseconds: .min), t0 - hour, t0, Instant(milliseconds: .max)])
        }
        _ = spec.holds(input(user))
        _ = spec.explain(input(user))
        _ = spec.nextChange(input(user))
        _ = spec.nextChange(input(user, Instant(milliseconds: .max - 1)))
        _ = spec.holds(input(user, Instant(milliseconds: .min)))
    }
}
