import Rules
import TestRandom
import Testing

/// Property: for every richer node, in zones with DST (30-minute and 45-minute offsets included) around their
/// transitions, the answer is constant at every sampled instant before the reported next change (every UTC
/// quarter hour, where every local hour boundary of these zones falls, plus random instants), and the node has
/// flipped at it; with no next change, the answer stays put for ten days.
@Suite struct RicherNextChangeTests {
    static let zones: [String?] = [nil, "Europe/Paris", "America/New_York", "Australia/Lord_Howe", "Asia/Kathmandu", "America/Sao_Paulo"]
    /// DST transitions of 2026 (and two of 2018, when São Paulo still moved its clocks at midnight: a day that
    /// starts at 01:00 and one whose last hour repeats).
    static let transitions = [
        "2026-03-29T01:00:00Z", "2026-10-25T01:00:00Z", "2026-03-08T07:00:00Z", "2026-11-01T06:00:00Z", "2026-04-04T15:00:00Z",
        "2026-10-03T15:30:00Z", "2018-11-04T03:00:00Z", "2018-02-18T02:00:00Z", "2026-03-10T12:00:00Z"
    ].map(at)

    static let specs = [
        #"{"cooldown": {"event": "e", "for": "20m", "backoff": {"counter": "n", "factor": 2, "max": "1d"}}}"#,
        #"{"cooldown": {"event": "e", "for": "15m", "backoff": {"counter": "n", "factor": 1.5}}}"#,
        #"{"cooldown": {"event": "e", "day": "1h", "night": "9h", "nightHours": [22, 7]}}"#,
        #"{"cooldown": {"event": "e", "day": "6h", "night": "30m", "nightHours": [1, 3]}}"#,
        #"{"cooldown": {"event": "e", "day": "2h", "night": "5h", "nightHours": [23, 0]}, "tz": "Europe/Paris"}"#,
        #"{"sinceLaunch": {"gt": "1d"}}"#, #"{"sinceLaunch": {"lte": "2h"}}"#,
        #"{"history": {"event": "d", "over": "3d", "per": "day", "stat": "max", "gte": 2}}"#,
        #"{"history": {"event": "d", "over": "2d", "per": "day", "stat": "activePeriods", "eq": 1}}"#,
        #"{"history": {"event": "d", "over": "6h", "per": "hour", "stat": "mean", "gte": 0.5}}"#,
        #"{"history": {"event": "d", "over": "5d", "per": "day", "stat": "median", "gte": 1}}"#,
        #"{"history": {"event": "d", "over": "2w", "per": "week", "stat": "p90", "lt": 3}}"#,
        #"{"history": {"event": "d", "over": "60d", "per": "month", "stat": "min", "gte": 1}}"#
    ]

    static func randomUser(_ random: inout SplitMix, around base: Instant) -> UserContext {
        context {
            $0.timeZone = zones[random.next(upTo: zones.count)]
            $0.launchedAt = base - Int64(random.next(upTo: 2 * Int(day)))
            if random.next(upTo: 5) > 0 { $0.events["e"] = base + Int64(random.next(upTo: 3 * Int(day))) - 2 * day }
            let counters = [0, 1, 2, 5, -3, Int.max, Int.min]
            if random.next(upTo: 4) > 0 { $0.counters["n"] = counters[random.next(upTo: counters.count)] }
            let times = (0..<random.next(upTo: 7)).map { _ in base + Int64(random.next(upTo: 6 * Int(day))) - 4 * day }.sorted()
            if !times.isEmpty { $0.donations["d"] = DonationSummary(count: times.count, recent: times) }
        }
    }

    static func samples(from now: Instant, to end: Instant, _ random: inout SplitMix) -> [Instant] {
        let quarter: Int64 = 15 * minute
        var samples: [Instant] = []
        var cursor = Instant(milliseconds: (now.milliseconds / quarter + 1) * quarter)
        while cursor < end, samples.count < 1200 {
            samples.append(cursor)
            cursor = cursor + quarter
        }
        for _ in 0..<40 where end > now { samples.append(now + Int64(random.next(upTo: Int(min(end - now, 30 * day))))) }
        return samples
    }

    @Test(arguments: [1, 2, 3]) func property_richerNodes_answerConstantUntilTheNextChange(seed: UInt64) throws {
        var random = SplitMix(seed: seed)
        let compiled = try Self.specs.map { try compileSpec($0) }
        var changes = 0
        for _ in 0..<150 {
            let base = Self.transitions[random.next(upTo: Self.transitions.count)]
            let user = Self.randomUser(&random, around: base)
            let index = random.next(upTo: compiled.count)
            let spec = compiled[index]
            let now = base + Int64(random.next(upTo: Int(day))) - 12 * hour
            let initial = spec.holds(input(user, now))
            guard let change = spec.nextChange(input(user, now)) else {
                for sample in Self.samples(from: now, to: now + 10 * day, &random) {
                    #expect(spec.holds(input(user, sample)) == initial, "\(Self.specs[index]) changed at \(sample) with no next change from \(now)")
                }
                continue
            }
            changes += 1
            #expect(change > now)
            for sample in Self.samples(from: now, to: change, &random) where sample < change {
                #expect(spec.holds(input(user, sample)) == initial, "\(Self.specs[index]) changed at \(sample), before \(change) from \(now)")
            }
            #expect(spec.holds(input(user, change - 1)) == initial, "\(Self.specs[index]) from \(now)")
            #expect(spec.holds(input(user, change)) != initial, "\(Self.specs[index]) did not change at \(change) from \(now)")
        }
        #expect(changes > 30)
    }
}
