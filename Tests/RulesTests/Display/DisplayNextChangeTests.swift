import Rules
import TestRandom
import Testing

/// Brute force against `nextChange` for display flags and display nodes: the answer is the same at every sampled
/// instant before the reported change and differs at it; with no change reported, it never changes.
@Suite struct DisplayNextChangeTests {
    static let rules = try! ruleSet(
        #"{"groups": {"g": {"frequency": "2h", "order": "firstAvailable"}, "o": {"frequency": "hourly", "order": "ordered"}, "*": {"frequency": "30m"}}, "#
            + #""flags": {"#
            + #""a": {"when": {"always": true}, "display": {"maxCount": 3, "group": "g"}}, "#
            + #""b": {"when": {"cooldown": {"event": "e", "for": "3h"}}, "display": {"group": "g", "invalidateOn": ["dismissed"]}}, "#
            + #""c": {"when": {"hourIn": [9, 17], "tz": "Europe/Paris"}, "display": {"group": "o"}}, "#
            + #""d": {"cases": [{"when": {"sinceLaunch": "5h"}, "value": true}], "fallback": false, "display": {"maxCount": 2, "group": "o"}}, "#
            + #""w": {"when": {"display": {"flag": "a", "shownWithin": "90m"}}}, "#
            + #""n": {"when": {"not": {"display": {"flag": "b", "shownWithin": "1h"}}}}, "#
            + #""k": {"when": {"display": {"flag": "c", "shownCount": {"lt": 2}}}}}}"#)

    static func randomUser(_ random: inout SplitMix) -> UserContext {
        context { user in
            user.launchedAt = t0 - Int64(random.next(upTo: 6 * Int(hour)))
            if random.next(upTo: 2) == 0 { user.events["e"] = t0 - Int64(random.next(upTo: 4 * Int(hour))) }
            for key in ["a", "b", "c", "d"] where random.next(upTo: 3) > 0 {
                var state = DisplayState()
                for _ in 0..<(1 + random.next(upTo: 3)) {
                    let event = DisplayState.Event.allCases[random.next(upTo: 5) < 3 ? 0 : 1 + random.next(upTo: 2)]
                    // Some shows lie in the future: the clock must still be exact about them.
                    let shown = t0 - Int64(random.next(upTo: 4 * Int(hour))) + Int64(random.next(upTo: 2) == 0 ? random.next(upTo: Int(hour)) : 0)
                    let rule = rules.flags[key]!.display!
                    state.record(event, at: shown, maxCount: rule.maxCount, invalidates: rule.invalidateOn.contains(event))
                }
                user.display[key] = state
            }
        }
    }

    @Test(arguments: [1, 2, 3]) func property_answerIsConstantUntilTheNextChange_andDiffersAtIt(seed: UInt64) {
        var random = SplitMix(seed: seed)
        var changes = 0
        for _ in 0..<400 {
            let user = Self.randomUser(&random)
            let key = Self.rules.flagKeys[random.next(upTo: Self.rules.flagKeys.count)]
            let flag = Self.rules.flags[key]!
            let now = t0 + Int64(random.next(upTo: 6 * Int(hour)))
            let initial = flag.evaluate(input(user, now))
            guard let change = flag.nextChange(input(user, now)) else {
                for step in 1...48 { #expect(flag.evaluate(input(user, now + Int64(step) * 30 * minute)) == initial, "\(key) changed") }
                continue
            }
            #expect(change > now)
            for step in 0..<40 {
                let sample = now + (change - now) * Int64(step) / 40
                #expect(flag.evaluate(input(user, sample)) == initial, "\(key) changed before \(change)")
            }
            #expect(flag.evaluate(input(user, change - 1)) == initial)
            #expect(flag.evaluate(input(user, change)) != initial, "\(key) did not change at \(change)")
            changes += 1
        }
        #expect(changes > 50)
    }
}
