import Rules
import Testing

@Suite struct DisplayValidationTests {
    static let groups = #""groups": {"g": {"frequency": "daily", "order": "ordered"}}"#

    /// Each bad input is one error, at its JSON pointer, with its stable code.
    @Test(arguments: [
        (
            #"{"flags": {"d": {"cases": [{"when": {"always": true}, "value": "x"}], "fallback": "y", "display": {}}}}"#, "/flags/d/display",
            "display_not_boolean"
        ),
        (#"{"flags": {"f": {"when": {"always": true}, "display": {"maxCount": 0}}}}"#, "/flags/f/display/maxCount", "invalid_max_count"),
        (#"{"flags": {"f": {"when": {"always": true}, "display": {"maxCount": -3}}}}"#, "/flags/f/display/maxCount", "invalid_max_count"),
        (#"{"flags": {"f": {"when": {"always": true}, "display": {"maxCount": 1e40}}}}"#, "/flags/f/display/maxCount", "invalid_max_count"),
        (#"{"flags": {"f": {"when": {"always": true}, "display": {"maxCount": "2"}}}}"#, "/flags/f/display/maxCount", "invalid_max_count"),
        (#"{"flags": {"f": {"when": {"always": true}, "display": {"group": "nope"}}}}"#, "/flags/f/display/group", "unknown_group"),
        (#"{"flags": {"f": {"when": {"always": true}, "display": {"extra": 1}}}}"#, "/flags/f/display/extra", "unknown_field"),
        (
            #"{"flags": {"f": {"when": {"always": true}, "display": {"invalidateOn": ["shown"]}}}}"#, "/flags/f/display/invalidateOn/0",
            "invalid_value"
        ),
        (#"{"flags": {"f": {"when": {"always": true}, "display": {"invalidateOn": "dismissed"}}}}"#, "/flags/f/display/invalidateOn", "wrong_type"),
        (#"{"flags": {"f": {"when": {"always": true}, "display": 3}}}"#, "/flags/f/display", "wrong_type"),
        (#"{"groups": {"g": {"frequency": "fortnightly"}}, "flags": {}}"#, "/groups/g/frequency", "invalid_frequency"),
        (#"{"groups": {"g": {"frequency": "-1h"}}, "flags": {}}"#, "/groups/g/frequency", "invalid_frequency"),
        (#"{"groups": {"g": {"order": "random"}}, "flags": {}}"#, "/groups/g/order", "invalid_value"),
        (#"{"groups": {"g": {"extra": true}}, "flags": {}}"#, "/groups/g/extra", "unknown_field"),
        (#"{"groups": [], "flags": {}}"#, "/groups", "wrong_type"),
        (#"{"flags": {"f": {"when": {"display": {"flag": "x", "shownCount": {"lt": 2}}}}}}"#, "/flags/f/when/display/flag", "not_a_display_flag"),
        (
            #"{"flags": {"t": {"when": {"always": true}, "display": {}}, "f": {"when": {"display": {"flag": "t", "shownCount": {"lt": 2}, "shownWithin": "1d"}}}}}"#,
            "/flags/f/when/display", "multiple_operators"
        ),
        (
            #"{"flags": {"t": {"when": {"always": true}, "display": {}}, "f": {"when": {"display": {"flag": "t"}}}}}"#, "/flags/f/when/display",
            "missing_field"
        ),
        (
            #"{"flags": {"t": {"when": {"always": true}, "display": {}}, "f": {"when": {"display": {"flag": "t", "shownCount": {"lt": 2}, "x": 1}}}}}"#,
            "/flags/f/when/display/x", "unknown_field"
        ),
        (
            #"{"flags": {"t": {"when": {"always": true}, "display": {}}, "f": {"when": {"display": {"flag": "t", "shownCount": {"below": 2}}}}}}"#,
            "/flags/f/when/display/shownCount/below", "unknown_field"
        ),
        (
            #"{"flags": {"t": {"when": {"always": true}, "display": {}}, "f": {"when": {"display": {"flag": "t", "shownWithin": "soon"}}}}}"#,
            "/flags/f/when/display/shownWithin", "invalid_duration"
        )
    ])
    func invalidDisplay_isAnErrorAtItsPath(json: String, path: String, code: String) throws {
        let found = try diagnostics(json).filter { $0.severity == .error }
        #expect(found.contains { $0.path == path && $0.code == code }, "got \(found.map { "\($0.path) \($0.code)" })")
    }

    @Test func validDisplay_compilesWithItsGroupResolved() throws {
        let set = try ruleSet(
            #"{\#(Self.groups), "flags": {"a": {"when": {"always": true}, "display": {"maxCount": 2, "group": "g", "invalidateOn": ["actionPerformed"]}}, "#
                + #""b": {"when": {"always": true}, "display": {"group": "g"}}}}"#)
        let display = try #require(set.flags["b"]?.display)
        #expect(display.maxCount == nil)
        #expect(display.constraints.count == 1)
        #expect(display.constraints[0].others.map(\.key) == ["a"])
        #expect(display.constraints[0].earlierCount == 1)
        #expect(set.flags["a"]?.display?.invalidateOn == [.actionPerformed])
    }

    /// A decision over booleans answers booleans too: it may carry `display`, and answers its fallback when held back.
    @Test func booleanDecision_mayCarryDisplay() throws {
        let set = try ruleSet(
            #"{"flags": {"d": {"cases": [{"when": {"always": true}, "value": true}], "fallback": false, "display": {"maxCount": 1}}}}"#)
        var user = context()
        user.display["d"] = DisplayState(shownCount: 1, lastShown: t0)
        let answer = set.evaluate("d", input(user))
        #expect(answer.value == false)
        #expect(answer.reason == .invalidated)
    }

    @Test func unusedGroup_isAWarning() throws {
        let found = try diagnostics(#"{"groups": {"lonely": {"frequency": "daily"}}, "flags": {}}"#)
        #expect(found.contains { $0.severity == .warning && $0.path == "/groups/lonely" && $0.code == "unused_group" })
    }

    @Test(arguments: [("immediate", 0), ("hourly", hour), ("daily", day), ("weekly", 7 * day), ("monthly", 30 * day), ("36h", 36 * hour)])
    func frequency_namesAndDurations(text: String, window: Int64) throws {
        let set = try ruleSet(#"{"groups": {"g": {"frequency": "\#(text)"}}, "flags": {"f": {"when": {"always": true}, "display": {"group": "g"}}}}"#)
        #expect(set.flags["f"]?.display?.constraints.first?.group.window == window)
    }
}

/// A display group's members each list the others, so a group costs the square of its size: two thousand flags in one
/// ordered group (127 KB) took minutes to validate (found by adversarial review). Groups are bounded instead.
@Suite struct DisplayGroupSizeTests {
    static func file(members: Int, group: String = "g") -> String {
        let flags = (0..<members).map { #""t\#($0)": {"when": {"always": true}, "display": {"group": "\#(group)"}}"# }.joined(separator: ", ")
        return #"{"groups": {"g": {"order": "ordered"}, "*": {"frequency": "1h"}}, "flags": {\#(flags)}}"#
    }

    @Test func aGroupPastTheBound_isRefused_withoutTheQuadraticWork() throws {
        let clock = ContinuousClock()
        let started = clock.now
        let found = try diagnostics(Self.file(members: 2_000))
        #expect(clock.now - started < .seconds(30))
        #expect(found.contains { $0.code == "group_too_large" && $0.path == "/groups/g" })
        #expect(found.contains { $0.code == "group_too_large" && $0.path == "/groups/*" })
    }

    @Test func aGroupAtTheBound_loadsAndGatesInOrder() throws {
        let rules = try ruleSet(Self.file(members: 256))
        #expect(rules.evaluate("t0", input(context())).value == true)
        // An ordered group: the second waits for the first to be invalidated.
        #expect(rules.evaluate("t1", input(context())).value == false)
    }
}
