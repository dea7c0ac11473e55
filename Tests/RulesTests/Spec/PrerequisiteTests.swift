import Rules
import Testing

/// `prerequisite` (docs/rules.md, "prerequisite"): answers, validation, next changes, explain and the inputs index.
@Suite struct PrerequisiteTests {
    static let rules = #"""
        {"flags": {
          "dependent-first": {"when": {"prerequisite": {"flag": "plan-flag", "equals": "pro"}}},
          "base": {"when": {"segment": "beta"}},
          "plan-flag": {"cases": [{"when": {"attr": {"key": "plan", "eq": "pro"}}, "value": "pro"}], "fallback": "free"},
          "price": {"cases": [{"when": {"segment": "vip"}, "value": 50.0}], "fallback": 0},
          "checkout": {"variants": {"new": "v2", "old": "v1"}, "defaultVariant": "old",
                       "cases": [{"when": {"segment": "beta"}, "variant": "new"}]},
          "off": {"enabled": false, "cases": [{"when": {"always": true}, "value": true}], "fallback": true},
          "flagd": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off",
                    "targeting": {"if": [{"==": [{"var": "tier"}, "gold"]}, "on", "off"]}},
          "on-base": {"when": {"prerequisite": {"flag": "base", "equals": true}}},
          "chain": {"when": {"prerequisite": {"flag": "on-base", "equals": true}}},
          "not-base": {"when": {"prerequisite": {"flag": "base", "equals": false}}},
          "price-50": {"when": {"prerequisite": {"flag": "price", "equals": 50}}},
          "new-checkout": {"when": {"prerequisite": {"flag": "checkout", "variant": "new"}}},
          "off-dependent": {"when": {"prerequisite": {"flag": "off", "equals": true}}},
          "gold": {"when": {"prerequisite": {"flag": "flagd", "variant": "on"}}},
          "cooling": {"when": {"cooldown": {"event": "e", "for": "1h"}}},
          "after-cooling": {"when": {"all": [{"prerequisite": {"flag": "cooling", "equals": true}}, {"segment": "beta"}]}}
        }}
        """#

    struct Case: CustomTestStringConvertible, Sendable {
        let flag: String
        let segments: [String]
        let attributes: [String: String]
        let expected: Bool
        var testDescription: String { "\(flag) with \(segments) \(attributes) → \(expected)" }
    }

    static let cases: [Case] = [
        .init(flag: "on-base", segments: ["beta"], attributes: [:], expected: true),
        .init(flag: "on-base", segments: [], attributes: [:], expected: false),
        .init(flag: "chain", segments: ["beta"], attributes: [:], expected: true),
        .init(flag: "chain", segments: [], attributes: [:], expected: false),
        .init(flag: "not-base", segments: [], attributes: [:], expected: true),
        .init(flag: "not-base", segments: ["beta"], attributes: [:], expected: false),
        // 50 equals 50.0: numbers compare by value.
        .init(flag: "price-50", segments: ["vip"], attributes: [:], expected: true),
        .init(flag: "price-50", segments: [], attributes: [:], expected: false),
        .init(flag: "new-checkout", segments: ["beta"], attributes: [:], expected: true),
        .init(flag: "new-checkout", segments: [], attributes: [:], expected: false),
        // A disabled prerequisite does not hold, even though its fallback is the value asked for.
        .init(flag: "off-dependent", segments: [], attributes: [:], expected: false),
        .init(flag: "gold", segments: [], attributes: ["tier": "gold"], expected: true),
        .init(flag: "gold", segments: [], attributes: ["tier": "silver"], expected: false),
        // A dependent declared before its prerequisite.
        .init(flag: "dependent-first", segments: [], attributes: ["plan": "pro"], expected: true),
        .init(flag: "dependent-first", segments: [], attributes: ["plan": "free"], expected: false)
    ]

    @Test(arguments: cases)
    func prerequisite_holdsWhenTheFlagAnswersAsAsked(_ test: Case) throws {
        let set = try ruleSet(Self.rules)
        let user = context {
            for segment in test.segments { $0.segments.insert(segment) }
            for (key, value) in test.attributes { $0.attributes[key] = .string(value) }
        }
        #expect(set.evaluate(test.flag, input(user)).value == .bool(test.expected))
    }

    @Test func nextChange_isThePrerequisitesChange() throws {
        let set = try ruleSet(Self.rules)
        let user = context {
            $0.events["e"] = t0 - 20 * minute
            $0.segments.insert("beta")
        }
        #expect(set.evaluate("after-cooling", input(user)).value == false)
        #expect(set.nextChange("after-cooling", input(user)) == t0 + 40 * minute)
        #expect(set.evaluate("after-cooling", input(user, t0 + 40 * minute - 1)).value == false)
        #expect(set.evaluate("after-cooling", input(user, t0 + 40 * minute)).value == true)
    }

    @Test func nextChange_skipsPrerequisiteChangesTheTestDoesNotSee() throws {
        // The decision changes value at 13:00 (a → b) and at 14:00 (b → c); only "equals c" flips, at 14:00.
        let set = try ruleSet(
            #"""
            {"flags": {
              "d": {"cases": [{"when": {"dateRange": {"to": "2026-03-10T12:59:59.999Z"}}, "value": "a"},
                              {"when": {"dateRange": {"to": "2026-03-10T13:59:59.999Z"}}, "value": "b"}], "fallback": "c"},
              "is-c": {"when": {"prerequisite": {"flag": "d", "equals": "c"}}}
            }}
            """#)
        #expect(set.nextChange("is-c", input(context())) == at("2026-03-10T14:00:00Z"))
    }

    @Test func explain_showsTheChain() throws {
        let set = try ruleSet(Self.rules)
        let user = context { $0.segments.insert("beta") }
        let tree = JSONWriter.string(set.flags["chain"]!.explain(input(user)))
        #expect(tree.contains("flag 'on-base' answered true"))
        #expect(tree.contains("flag 'base' answered true"))
        #expect(tree.contains(#""node":"segment""#))
        let disabled = JSONWriter.string(set.flags["off-dependent"]!.explain(input(user)))
        #expect(disabled.contains("a disabled prerequisite does not hold"))
    }

    @Test func inputs_ofADependent_includeItsPrerequisitesTransitively() throws {
        let set = try ruleSet(Self.rules)
        #expect(set.flags["chain"]!.inputs == [.segments])
        #expect(set.flags["dependent-first"]!.inputs == [.attribute("plan")])
        // A flagd prerequisite may read any attribute: its dependent's inputs are unknown too.
        #expect(set.flags["gold"]!.inputs == nil)
        var before = UserContext()
        var after = before
        after.segments.insert("beta")
        let reached = set.flagsAffected(from: before, to: after).map(\.key)
        #expect(reached.contains("chain") && reached.contains("on-base") && reached.contains("after-cooling"))
        before.attributes["tier"] = .string("gold")
        after = before
        after.attributes["tier"] = .string("silver")
        #expect(set.flagsAffected(from: before, to: after).map(\.key).contains("gold"))
    }
}

let prerequisiteValidationCases: [ValidationCase] = [
    .init(
        code: "display_prerequisite", path: "/flags/f/when/prerequisite/flag",
        rules:
            #"{"flags": {"tip": {"when": {"always": true}, "display": {"maxCount": 1}}, "f": {"when": {"prerequisite": {"flag": "tip", "equals": true}}}}}"#
    ),
    .init(
        code: "unknown_prerequisite", path: "/flags/f/when/prerequisite/flag",
        rules: #"{"flags": {"f": {"when": {"prerequisite": {"flag": "ghost", "equals": true}}}}}"#),
    .init(
        code: "cycle", path: "/flags/f/when/prerequisite/flag",
        rules: #"{"flags": {"f": {"when": {"prerequisite": {"flag": "f", "equals": true}}}}}"#),
    .init(
        code: "cycle", path: "/flags/b/when/prerequisite/flag",
        rules:
            #"{"flags": {"a": {"when": {"prerequisite": {"flag": "b", "equals": true}}}, "b": {"when": {"prerequisite": {"flag": "a", "equals": true}}}}}"#
    ),
    // Through a named spec: a → spec s → a.
    .init(
        code: "cycle", path: "/flags/a/when/ref",
        rules: #"{"specs": {"s": {"prerequisite": {"flag": "a", "equals": true}}}, "flags": {"a": {"when": {"ref": "s"}}}}"#),
    .init(
        code: "cycle", path: "/flags/c/cases/0/when/prerequisite/flag",
        rules: #"""
            {"flags": {"a": {"when": {"prerequisite": {"flag": "b", "equals": true}}},
                       "b": {"when": {"any": [{"segment": "x"}, {"prerequisite": {"flag": "c", "equals": 1}}]}},
                       "c": {"cases": [{"when": {"prerequisite": {"flag": "a", "equals": true}}, "value": 1}], "fallback": 0}}}
            """#),
    .init(
        code: "wrong_type", path: "/flags/f/when/prerequisite/equals",
        rules: #"{"flags": {"g": {"when": {"always": true}}, "f": {"when": {"prerequisite": {"flag": "g", "equals": "yes"}}}}}"#),
    .init(
        code: "wrong_type", path: "/flags/f/when/prerequisite/equals",
        rules: #"{"flags": {"g": {"cases": [], "fallback": 1}, "f": {"when": {"prerequisite": {"flag": "g", "equals": [1]}}}}}"#),
    .init(
        code: "unknown_variant", path: "/flags/f/when/prerequisite/variant",
        rules: #"{"flags": {"g": {"variants": {"a": 1}, "defaultVariant": "a"}, "f": {"when": {"prerequisite": {"flag": "g", "variant": "b"}}}}}"#),
    .init(
        code: "unknown_variant", path: "/flags/f/when/prerequisite/variant",
        rules: #"{"flags": {"g": {"when": {"always": true}}, "f": {"when": {"prerequisite": {"flag": "g", "variant": "on"}}}}}"#),
    .init(
        code: "multiple_operators", path: "/flags/f/when/prerequisite",
        rules: #"{"flags": {"g": {"when": {"always": true}}, "f": {"when": {"prerequisite": {"flag": "g", "equals": true, "variant": "x"}}}}}"#),
    .init(
        code: "missing_field", path: "/flags/f/when/prerequisite",
        rules: #"{"flags": {"g": {"when": {"always": true}}, "f": {"when": {"prerequisite": {"flag": "g"}}}}}"#),
    .init(
        code: "unknown_field", path: "/flags/f/when/prerequisite/value",
        rules: #"{"flags": {"g": {"when": {"always": true}}, "f": {"when": {"prerequisite": {"flag": "g", "value": true}}}}}"#),
    .init(
        code: "missing_field", path: "/flags/f/when/prerequisite/flag",
        rules: #"{"flags": {"f": {"when": {"prerequisite": {"equals": true}}}}}"#)
]

@Suite struct PrerequisiteValidationTests {
    @Test(arguments: prerequisiteValidationCases)
    func diagnostic_hasItsCodeAndPath(_ test: ValidationCase) throws {
        let found = try diagnostics(test.rules)
        #expect(found.contains { $0.code == test.code && $0.path == test.path }, "got \(found)")
    }

    @Test func anInvalidPrerequisite_failsItsDependentToo_reportedOnce() throws {
        let rules = #"{"flags": {"f": {"when": {"prerequisite": {"flag": "g", "equals": true}}}, "g": {"when": {"any": []}}}}"#
        let found = try diagnostics(rules)
        #expect(found.map(\.code) == ["empty_combinator"])
        #expect(found.first?.path == "/flags/g/when/any")
    }

    @Test func aFlagUsedAsPrerequisiteTwice_isCompiledOnce_andKeepsDeclarationOrder() throws {
        let set = try ruleSet(
            #"{"flags": {"a": {"when": {"prerequisite": {"flag": "c", "equals": true}}}, "b": {"when": {"prerequisite": {"flag": "c", "equals": false}}}, "c": {"when": {"segment": "x"}}}}"#
        )
        #expect(set.flagKeys == ["a", "b", "c"])
        guard case .boolean(.prerequisite(let first, _)) = set.flags["a"]!.body,
            case .boolean(.prerequisite(let second, _)) = set.flags["b"]!.body
        else {
            Issue.record("not compiled as prerequisites")
            return
        }
        #expect(first === second && second === set.flags["c"]!)
    }
}
