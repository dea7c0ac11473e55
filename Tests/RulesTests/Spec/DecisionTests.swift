import Rules
import Testing

@Suite struct DecisionTests {
    let discount =
        #"{"flags": {"discount": {"cases": [{"when": {"segment": "vip"}, "value": 20}, {"when": {"flag": "promo"}, "value": 50}], "fallback": 0}}}"#

    @Test func firstMatchingCaseWins_orderBeatsMagnitude() throws {
        let set = try ruleSet(discount)
        let both = set.evaluate(
            "discount",
            input(
                context {
                    $0.segments = ["vip"]
                    $0.flags["promo"] = true
                }))
        #expect(both.value == 20)
        #expect(both.index == 0)
        #expect(both.reason == .targetingMatch)
        #expect(both.matched)
        #expect(set.evaluate("discount", input(context { $0.flags["promo"] = true })).index == 1)
    }

    @Test func fallback_reportsIndexEqualToCaseCount() throws {
        let evaluation = try ruleSet(discount).evaluate("discount", input(context()))
        #expect(evaluation.value == 0)
        #expect(evaluation.index == 2)
        #expect(evaluation.reason == .defaultValue)
        #expect(evaluation.matched)
    }

    @Test func noFallback_noMatch_isNullAndUnmatched() throws {
        let set = try ruleSet(#"{"flags": {"offer": {"cases": [{"when": {"segment": "vip"}, "value": {"sku": "x"}}]}}}"#)
        let evaluation = set.evaluate("offer", input(context()))
        #expect(evaluation.value == nil)
        #expect(evaluation.matched == false)
        #expect(evaluation.index == nil)
        #expect(evaluation.reason == .defaultValue)
        #expect(JSONWriter.string(evaluation.json) == #"{"value":null,"reason":"DEFAULT","matched":false}"#)
    }

    @Test func booleanFlag_reasons() throws {
        let set = try ruleSet(#"{"flags": {"b": {"when": {"segment": "vip"}}}}"#)
        #expect(set.evaluate("b", input(context { $0.segments = ["vip"] })).reason == .targetingMatch)
        let off = set.evaluate("b", input(context()))
        #expect(off.value == false)
        #expect(off.reason == .defaultValue)
    }

    @Test func variants_defaultVariantAndCaseVariant() throws {
        let set = try ruleSet(
            #"{"flags": {"checkout": {"variants": {"new": "v2", "old": "v1"}, "defaultVariant": "old", "cases": [{"when": {"segment": "beta"}, "variant": "new"}]}}}"#
        )
        let beta = set.evaluate("checkout", input(context { $0.segments = ["beta"] }))
        #expect(beta.value == "v2")
        #expect(beta.variant == "new")
        let other = set.evaluate("checkout", input(context()))
        #expect(other.variant == "old")
        #expect(other.reason == .defaultValue)
    }

    @Test func staticFlag_isStatic() throws {
        let set = try ruleSet(#"{"flags": {"color": {"variants": {"red": "ff0000"}, "defaultVariant": "red"}}}"#)
        let evaluation = set.evaluate("color", input(context()))
        #expect(evaluation.reason == .staticValue)
        #expect(evaluation.value == "ff0000")
    }

    @Test func disabled_answersFallbackWithReasonDisabled() throws {
        let set = try ruleSet(
            #"{"flags": {"d": {"enabled": false, "cases": [{"when": {"always": true}, "value": 1}], "fallback": 7}, "b": {"enabled": false, "when": {"always": true}}}}"#
        )
        let decision = set.evaluate("d", input(context()))
        #expect(decision.value == 7)
        #expect(decision.reason == .disabled)
        #expect(set.evaluate("b", input(context())).value == false)
        #expect(set.evaluate("b", input(context())).reason == .disabled)
    }

    @Test func split_isDeterministicAndReportsSplit() throws {
        let set = try ruleSet(
            #"{"flags": {"copy": {"cases": [{"when": {"always": true}, "split": [{"weight": 1, "value": "a"}, {"weight": 3, "value": "b"}]}]}}}"#)
        var counts: [String: Int] = [:]
        for index in 0..<4000 {
            let evaluation = set.evaluate("copy", input(context(), user: "user-\(index)"))
            #expect(evaluation.reason == .split)
            #expect(evaluation == set.evaluate("copy", input(context(), user: "user-\(index)")))
            counts[evaluation.value!.stringValue!, default: 0] += 1
        }
        #expect(abs(counts["a"]! - 1000) < 120)
    }

    @Test func unknownFlag_isAnErrorEvaluationNotAThrow() throws {
        let evaluation = try ruleSet(discount).evaluate("nope", input(context()))
        #expect(evaluation.reason == .error)
        #expect(evaluation.errorCode == .flagNotFound)
    }

    @Test func metadata_isCarried() throws {
        let set = try ruleSet(#"{"flags": {"b": {"when": {"always": true}, "metadata": {"owner": "growth", "n": 1}}}}"#)
        #expect(set.flags["b"]!.metadata["owner"] == "growth")
    }

    @Test func numbers_keepTheirLexicalForm() throws {
        let set = try ruleSet(#"{"flags": {"ratio": {"cases": [], "fallback": 0.0}}}"#)
        #expect(JSONWriter.string(set.evaluate("ratio", input(context())).value!) == "0.0")
    }
}

@Suite struct ContextInputTests {
    @Test func flagsAffected_areOnlyThoseReadingWhatChanged() throws {
        let set = try ruleSet(DefaultRules.json)
        var before = UserContext()
        before.counters["promo_banner_count"] = 1
        var after = before
        after.counters["promo_banner_count"] = 2
        let affected = set.flagsAffected(by: UserContext.changedInputs(from: before, to: after))
        #expect(affected == ["promo-banner"])
        after.segments.insert("vip")
        #expect(set.flagsAffected(by: UserContext.changedInputs(from: before, to: after)).contains("discount"))
        #expect(set.flagsAffected(by: UserContext.changedInputs(from: before, to: before)).isEmpty)
    }

    @Test func changedInputs_fromNoUser_isEverythingPresent() {
        var context = UserContext()
        context.launchedAt = t0
        context.flags["promo"] = true
        #expect(UserContext.changedInputs(from: nil, to: context) == [.launchedAt, .flag("promo")])
    }
}
