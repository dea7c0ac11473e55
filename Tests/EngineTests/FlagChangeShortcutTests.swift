import Foundation
import Rules
import Store
import TestRandom
import Testing

@testable import Engine

/// A write's changes are found without building the answers of flags whose answer certainly did not move
/// (`Flag.answersAlike`). These hold the shortcut to its definition: over random writes, the changes equal those of
/// evaluating every flag before and after in full, and wherever the shortcut says "alike" the full answers agree.
@Suite struct FlagChangeShortcutTests {
    static let rules = """
        {"flags": {
          "counted": {"when": {"counter": {"key": "k", "gte": 2}}},
          "off": {"enabled": false, "when": {"counter": {"key": "k", "gte": 1}}},
          "off-decision": {"enabled": false, "cases": [{"when": {"counter": {"key": "k", "gte": 1}}, "value": "a"}],
                           "fallback": "z"},
          "tier": {"cases": [{"when": {"counter": {"key": "k", "gte": 3}}, "value": "gold"},
                             {"when": {"counter": {"key": "k", "gte": 1}}, "value": "gold"},
                             {"when": {"flag": {"key": "f", "equals": true}}, "value": "flagged"}],
                   "fallback": "none"},
          "variants": {"variants": {"new": "v2", "old": "v1"}, "defaultVariant": "old",
                       "cases": [{"when": {"counter": {"key": "k", "gte": 2}}, "variant": "new"},
                                 {"when": {"flag": {"key": "f", "equals": true}}, "variant": "old"}]},
          "no-fallback": {"cases": [{"when": {"segment": "vip"}, "value": 1}]},
          "split": {"cases": [{"when": {"counter": {"key": "k", "gte": 1}},
                              "split": [{"weight": 1, "value": "x"}, {"weight": 1, "value": "y"}]}],
                    "fallback": "x"},
          "versioned": {"when": {"lastDonationVersion": {"event": "appStarted", "ne": "$appVersion"}}},
          "shown": {"when": {"counter": {"key": "k", "gte": 1}}, "display": {"maxCount": 2}},
          "weighted": {"pick": "weighted", "cases": [{"when": {"always": true}, "weight": 1, "value": "p"},
                                                      {"when": {"segment": "vip"}, "weight": 5, "value": "q"}]},
          "fd": {"state": "ENABLED", "defaultVariant": "off", "variants": {"on": true, "off": false},
                 "targeting": {"if": [{">=": [{"var": "k"}, 1]}, "on", "off"]}}
        }}
        """

    static var exampleText: String {
        get throws {
            let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .appendingPathComponent("../../config/rules.example.json").standardized
            return try String(contentsOf: url, encoding: .utf8)
        }
    }

    static func randomAction(_ random: inout SplitMix, now: Instant) -> Action {
        let versions: [String?] = [nil, "1.0", "1.9", "2.0", "2.1.3"]
        switch random.next(upTo: 9) {
        case 0: return .increment(counter: "k", by: random.next(upTo: 3))
        case 1: return .decrement(counter: "k", by: 1)
        case 2: return .setFlag(flag: "f", value: random.next(upTo: 2) == 0)
        case 3: return random.next(upTo: 2) == 0 ? .addSegment("vip") : .removeSegment("vip")
        case 4: return .increment(counter: "editor_opened", by: 1)
        case 5: return .setAttribute(key: "score", value: .int(random.next(upTo: 120)))
        case 6: return .setAttribute(key: "plan", value: .string(random.next(upTo: 2) == 0 ? "free" : "pro"))
        case 7:
            return .donate(
                event: random.next(upTo: 3) == 0 ? "paywallViewed" : "appStarted", at: now, appVersion: versions[random.next(upTo: versions.count)])
        default: return .recordEvent(event: "feature_used", at: now)
        }
    }

    /// Every flag evaluated in full before and after: the definition the shortcut must keep.
    static func fullChanges(
        _ before: UserContext?, _ after: UserContext?, _ set: RuleSet, _ request: RequestAttributes, _ now: Instant
    )
        -> [String]
    {
        let old = EvaluationInput(context: before ?? UserContext(), now: now, request: request)
        let new = EvaluationInput(context: after ?? UserContext(), now: now, request: request)
        return set.declaredFlags.compactMap { flag in
            let previous = flag.evaluate(old)
            let current = flag.evaluate(new)
            return previous.value != current.value || previous.variant != current.variant ? flag.key : nil
        }
    }

    @Test(arguments: [UInt64(1), 2, 3])
    func changesFound_equalEvaluatingEveryFlagInFull(seed: UInt64) throws {
        for text in [Self.rules, try Self.exampleText] {
            let set = try RuleSetLoader.load(text: text, name: "t").get()
            var random = SplitMix(seed: seed)
            var state: UserContext?
            var now = Instant(milliseconds: 1_773_144_000_000)
            var changed = 0
            for step in 0..<400 {
                now = Instant(milliseconds: now.milliseconds + Int64(random.next(upTo: 40_000_000)))
                let user = "u\(step % 7)"
                let action = Self.randomAction(&random, now: now)
                let version: String? = random.next(upTo: 2) == 0 ? nil : "2.0"
                let previous = state
                state = try Reducer.apply(Mutation(user: user, now: now, actions: [action]), to: previous).state
                let request = RequestAttributes(userID: user, appVersion: version)
                let found = FlagChange.between(previous, state, in: set, now: now, request: request)
                let expected = Self.fullChanges(previous, state, set, request, now)
                #expect(found.map(\.key) == expected, "step \(step): \(action)")
                changed += found.count
            }
            // Writes that move answers were made: a diff that found nothing would not have been tested.
            #expect(changed > 20)
        }
    }

    @Test func alike_isSaidOnlyOfAnswersThatAgree_andOfMostUnmovedOnes() throws {
        let set = try RuleSetLoader.load(text: Self.rules, name: "t").get()
        var random = SplitMix(seed: 9)
        var state: UserContext?
        let now = Instant(milliseconds: 1_773_144_000_000)
        var alike = 0
        var unmoved = 0
        for step in 0..<600 {
            let previous = state
            state = try Reducer.apply(Mutation(user: "u", now: now, actions: [Self.randomAction(&random, now: now)]), to: previous).state
            let request = RequestAttributes(userID: "u\(step % 5)", appVersion: "1.0")
            let old = EvaluationInput(context: previous ?? UserContext(), now: now, request: request)
            let new = EvaluationInput(context: state ?? UserContext(), now: now, request: request)
            for flag in set.declaredFlags {
                let before = flag.evaluate(old)
                let after = flag.evaluate(new)
                let same = before.value == after.value && before.variant == after.variant
                if flag.answersAlike(old, new) {
                    alike += 1
                    #expect(same, "\(flag.key) said alike: \(before) then \(after)")
                }
                if same { unmoved += 1 }
            }
        }
        #expect(alike * 10 > unmoved * 6, "the shortcut answered \(alike) of \(unmoved) unmoved answers")
    }

    @Test func flagsTheShortcutCannotJudge_areNeverSaidAlike() throws {
        let set = try RuleSetLoader.load(text: Self.rules, name: "t").get()
        let input = EvaluationInput(context: UserContext(), now: Instant(milliseconds: 0), request: RequestAttributes(userID: "u", appVersion: nil))
        for key in ["shown", "weighted", "fd"] {
            #expect(set.flags[key]?.answersAlike(input, input) == false, "\(key)")
        }
        for key in ["counted", "off", "off-decision", "tier", "variants", "no-fallback", "split", "versioned"] {
            #expect(set.flags[key]?.answersAlike(input, input) == true, "\(key)")
        }
    }
}
