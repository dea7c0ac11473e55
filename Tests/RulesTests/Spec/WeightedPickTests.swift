import Rules
import Testing

@Suite struct WeightedPickTests {
    static let rules = #"""
        {"flags": {"offer": {"pick": "weighted", "cases": [
            {"when": {"segment": "vip"}, "weight": 1, "value": "gold"},
            {"when": {"always": true}, "weight": 3, "value": "silver"},
            {"when": {"counter": {"key": "orders", "gte": 1}}, "weight": 1, "value": "bronze"}], "fallback": "none"}}}
        """#

    @Test func pick_isTheSplitBucketingOverTheHoldingCases_withThePickSalt() throws {
        let set = try ruleSet(Self.rules)
        let vip = context { $0.segments.insert("vip") }
        for user in ["u1", "u2", "alice", "héllo", ""] {
            // Holding: gold (1) and silver (3): total 4, bucket of "offer/pick/offer/<user>".
            let bucket = Bucketing.bucket("offer/pick/offer/" + user, totalWeight: 4)
            let answer = set.evaluate("offer", input(vip, user: user))
            #expect(answer.value == (bucket < 1 ? "gold" : "silver"), "\(user)")
            #expect(answer.index == (bucket < 1 ? 0 : 1))
            #expect(answer.reason == .split)
            // Deterministic: the same user gets the same answer every time.
            #expect(set.evaluate("offer", input(vip, user: user)) == answer)
        }
    }

    @Test func pick_onlyAmongCasesThatHold() throws {
        let set = try ruleSet(Self.rules)
        for index in 0..<200 {
            #expect(set.evaluate("offer", input(context(), user: "user-\(index)")).value == "silver")
        }
    }

    @Test func pick_followsTheWeights() throws {
        let set = try ruleSet(Self.rules)
        let vip = context { $0.segments.insert("vip") }
        var gold = 0
        for index in 0..<8000 where set.evaluate("offer", input(vip, user: "user-\(index)")).value == "gold" { gold += 1 }
        // Weight 1 of 4: 2000 expected; MurmurHash3 spreads well within ±10 %.
        #expect((1800...2200).contains(gold), "\(gold)")
    }

    @Test func pick_nothingHolds_givesTheFallback_orNoMatch() throws {
        let set = try ruleSet(
            #"{"flags": {"a": {"pick": "weighted", "cases": [{"when": {"segment": "vip"}, "weight": 2, "value": 1}], "fallback": 0}, "#
                + #""b": {"pick": "weighted", "cases": [{"when": {"segment": "vip"}, "weight": 2, "value": 1}]}}}"#)
        let fallback = set.evaluate("a", input(context()))
        #expect(fallback.value == 0 && fallback.index == 1 && fallback.reason == .defaultValue)
        let none = set.evaluate("b", input(context()))
        #expect(none.value == nil && none.matched == false)
    }

    @Test func pick_withVariants_andDisabled() throws {
        let set = try ruleSet(
            #"{"flags": {"v": {"pick": "weighted", "variants": {"on": true, "off": false}, "defaultVariant": "off", "#
                + #""cases": [{"when": {"always": true}, "weight": 5, "variant": "on"}]}, "#
                + #""d": {"pick": "weighted", "enabled": false, "cases": [{"when": {"always": true}, "weight": 5, "value": 1}], "fallback": 0}}}"#)
        let answer = set.evaluate("v", input(context()))
        #expect(answer.value == true && answer.variant == "on")
        #expect(set.evaluate("d", input(context())).reason == .disabled)
        #expect(set.evaluate("d", input(context())).value == 0)
    }

    @Test func pick_alwaysCase_isNotAnUnreachableWarning() throws {
        let set = try ruleSet(
            #"{"flags": {"p": {"pick": "weighted", "cases": [{"when": {"always": true}, "weight": 1, "value": 1}, "#
                + #"{"when": {"always": true}, "weight": 1, "value": 2}]}}}"#)
        #expect(set.warnings.isEmpty)
    }

    @Test func pick_nextChangeAndInputs_coverEveryCase() throws {
        let set = try ruleSet(
            #"{"flags": {"p": {"pick": "weighted", "cases": [{"when": {"always": true}, "weight": 1, "value": 1}, "#
                + #"{"when": {"cooldown": {"event": "e", "for": "1h"}}, "weight": 1, "value": 2}]}}}"#)
        let user = context { $0.events["e"] = t0 - 10 * minute }
        #expect(set.nextChange("p", input(user)) == t0 + 50 * minute)
        #expect(set.flags["p"]?.inputs == [.event("e")])
        let explained = set.flags["p"]!.explain(input(user))
        #expect(explained["chosen"] == 0)
    }
}
