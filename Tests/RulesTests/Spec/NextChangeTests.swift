import Rules
import TestRandom
import Testing

@Suite struct NextChangeTests {
    @Test func cooldownEnding_isTheNextChange() throws {
        let set = try ruleSet(#"{"flags": {"p": {"when": {"cooldown": {"event": "last", "for": "3d"}}}}}"#)
        let user = context { $0.events["last"] = t0 - day }
        let change = try #require(set.nextChange("p", input(user)))
        #expect(change == t0 + 2 * day)
        #expect(set.evaluate("p", input(user, change - 1)).value == false)
        #expect(set.evaluate("p", input(user, change)).value == true)
        #expect(set.nextChange("p", input(user, change)) == nil)
    }

    @Test func staticConditions_haveNoNextChange() throws {
        let set = try ruleSet(#"{"flags": {"p": {"when": {"all": [{"segment": "vip"}, {"counter": {"key": "k", "gt": 1}}]}}}}"#)
        #expect(set.nextChange("p", input(context())) == nil)
    }

    @Test func dateRange_opensAndCloses() throws {
        let set = try ruleSet(#"{"flags": {"p": {"when": {"dateRange": {"from": "2026-03-11T00:00:00Z", "to": "2026-03-12T00:00:00Z"}}}}}"#)
        #expect(set.nextChange("p", input(context())) == at("2026-03-11T00:00:00Z"))
        #expect(set.nextChange("p", input(context(), at("2026-03-11T06:00:00Z"))) == at("2026-03-12T00:00:00.001Z"))
    }

    @Test func donationWindow_slidesWhenTheComparisonFlips() throws {
        let set = try ruleSet(#"{"flags": {"p": {"when": {"donations": {"event": "e", "gte": 2, "within": "1h"}}}}}"#)
        let user = context { $0.donations["e"] = DonationSummary(count: 3, recent: [t0 - 50 * minute, t0 - 40 * minute, t0 - 10 * minute]) }
        // Three in the window; it drops to two at -50m + 1h + 1ms (still holds), to one at -40m + 1h + 1ms.
        #expect(set.nextChange("p", input(user)) == t0 + 20 * minute + 1)
    }

    @Test func hourRange_acrossSpringForward_inParis() throws {
        // 2026-03-29: clocks go from 02:00 CET to 03:00 CEST at 01:00 UTC.
        let set = try ruleSet(#"{"flags": {"p": {"when": {"hourIn": [3, 5], "tz": "Europe/Paris"}}}}"#)
        let before = at("2026-03-29T00:30:00Z")
        #expect(set.evaluate("p", input(context(), before)).value == false)
        let change = try #require(set.nextChange("p", input(context(), before)))
        #expect(change == at("2026-03-29T01:00:00Z"))
        #expect(set.evaluate("p", input(context(), change)).value == true)
        // It ends at 06:00 CEST = 04:00 UTC, not 05:00 UTC as fixed offsets would say.
        #expect(set.nextChange("p", input(context(), change)) == at("2026-03-29T04:00:00Z"))
    }

    @Test func hourRange_acrossFallBack_inNewYork() throws {
        // 2026-11-01: 02:00 EDT becomes 01:00 EST at 06:00 UTC; hour 1 happens twice.
        let set = try ruleSet(#"{"flags": {"p": {"when": {"hourIn": [2, 2], "tz": "America/New_York"}}}}"#)
        let change = try #require(set.nextChange("p", input(context(), at("2026-11-01T05:30:00Z"))))
        #expect(change == at("2026-11-01T07:00:00Z"))
    }

    @Test func calendarThrottle_monthAcrossMonthEndAndDST() {
        // One month after Jan 31 in the calendar is Feb 28; after 2026-03-15 09:00 Paris (CET) is 2026-04-15 09:00 (CEST).
        let period = CalendarPeriod(text: "1 month")!
        #expect(TimeZones.add(period, to: at("2026-01-31T10:00:00Z"), in: "UTC") == at("2026-02-28T10:00:00Z"))
        #expect(TimeZones.add(period, to: at("2026-03-15T08:00:00Z"), in: "Europe/Paris") == at("2026-04-15T07:00:00Z"))
        #expect(TimeZones.add(CalendarPeriod(text: "quarter")!, to: at("2026-01-15T00:00:00Z"), in: nil) == at("2026-04-15T00:00:00Z"))
    }

    /// Property: over random contexts and flags, the answer is constant at every sampled instant before the next
    /// change, and at the change the clock-dependent leaf has flipped.
    @Test func property_answerIsConstantUntilTheNextChange() throws {
        var generator = SplitMix(seed: 42)
        let specs = [
            #"{"cooldown": {"event": "e", "for": "2h"}}"#,
            #"{"sinceLaunch": "90m"}"#,
            #"{"lastDonation": {"event": "d", "within": "45m"}}"#,
            #"{"lastDonation": {"event": "d", "notWithin": "45m"}}"#,
            #"{"firstDonation": {"event": "d", "within": "1h"}}"#,
            #"{"firstDonation": {"event": "d", "notWithin": "1h"}}"#,
            #"{"donations": {"event": "d", "gte": 2, "within": "1h"}}"#,
            #"{"hourIn": [9, 17], "tz": "Europe/Paris"}"#,
            #"{"weekday": [6, 7]}"#,
            #"{"dateRange": {"from": "2026-03-10T13:00:00Z", "to": "2026-03-10T15:00:00Z"}}"#,
            #"{"all": [{"cooldown": {"event": "e", "for": "30m"}}, {"not": {"hourIn": [14, 15]}}]}"#,
            #"{"cooldown": {"event": "e", "for": "40m", "backoff": {"counter": "n", "factor": 3, "max": "2h"}}}"#,
            #"{"cooldown": {"event": "e", "day": "30m", "night": "2h", "nightHours": [20, 6]}, "tz": "America/New_York"}"#,
            #"{"sinceLaunch": {"lt": "90m"}}"#,
            #"{"history": {"event": "d", "over": "3h", "per": "hour", "stat": "activePeriods", "gte": 2}}"#
        ]
        let compiled = try specs.map { try compileSpec($0) }
        var checked = 0
        for _ in 0..<500 {
            let user = context {
                $0.launchedAt = t0 - Int64(generator.next(upTo: 3 * Int(hour)))
                if generator.next(upTo: 4) > 0 { $0.events["e"] = t0 - Int64(generator.next(upTo: 3 * Int(hour))) }
                let times = (0..<generator.next(upTo: 5)).map { _ in t0 - Int64(generator.next(upTo: 2 * Int(hour))) }.sorted()
                if let first = times.first, let last = times.last {
                    $0.donations["d"] = DonationSummary(
                        count: times.count, first: .init(at: first, appVersion: nil), last: .init(at: last, appVersion: nil), recent: times)
                }
            }
            let spec = compiled[generator.next(upTo: compiled.count)]
            let now = t0 + Int64(generator.next(upTo: Int(day)))
            let start = input(user, now)
            let initial = spec.holds(start)
            guard let change = spec.nextChange(start) else {
                for step in 1...20 { #expect(spec.holds(input(user, now + Int64(step) * 6 * hour)) == initial) }
                continue
            }
            #expect(change > now)
            for step in 0..<50 {
                let sample = now + (change - now) * Int64(step) / 50
                #expect(spec.holds(input(user, sample)) == initial, "changed before \(change)")
            }
            #expect(spec.holds(input(user, change - 1)) == initial)
            if case .all(let children) = spec {
                // A combinator reports its earliest child's change; that child has flipped there.
                let flipped = children.contains { $0.nextChange(start) == change && $0.holds(input(user, change)) != $0.holds(start) }
                #expect(flipped)
            } else {
                #expect(spec.holds(input(user, change)) != initial)
            }
            checked += 1
        }
        #expect(checked > 100)
    }
}
