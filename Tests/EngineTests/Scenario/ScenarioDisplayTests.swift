import Engine
import Rules
import Testing

/// The scenario `display` action and the `display` state assertion.
@Suite struct ScenarioDisplayTests {
    static let rules =
        #"{"groups": {"g": {"frequency": "1h"}}, "flags": {"a": {"when": {"always": true}, "display": {"group": "g", "maxCount": 3}}, "#
        + #""b": {"when": {"always": true}, "display": {"group": "g"}}, "plain": {"when": {"always": true}}}}"#

    @Test func displayAction_writesThroughTheEngine_andTheWindowEndIsPushed() throws {
        let runs = try ScenarioFixture.run(
            """
            {"start": "2026-01-01T09:00:00Z", "rules": \(Self.rules), "users": {"u1": {}},
             "steps": [{"name": "shown", "do": [{"display": "a", "user": "u1", "event": "shown"}],
                        "expect": [{"user": "u1", "display": "a", "equals": {"shownCount": 1}},
                                   {"user": "u1", "display": "b", "equals": 0},
                                   {"flag": "b", "user": "u1", "equals": false, "validUntil": "2026-01-01T10:00:00Z"},
                                   {"user": "u1", "events": [{"type": "flag", "key": "b", "value": false}]}]},
                       {"name": "an hour", "advance": "1h",
                        "expect": [{"user": "u1", "events": [{"type": "flag", "key": "b", "value": true}]}]}]}
            """)
        #expect(runs[0].passed, "\(runs[0].steps.flatMap(\.assertions).filter { !$0.passed }.compactMap(\.message))")
    }

    @Test(arguments: [("plain", "declares no display"), ("nope", "no flag named 'nope'")])
    func displayOfAFlagWithoutDisplay_failsTheStepNamingIt(flag: String, message: String) throws {
        let runs = try ScenarioFixture.run(
            """
            {"start": "2026-01-01T09:00:00Z", "rules": \(Self.rules),
             "steps": [{"do": [{"display": "\(flag)", "user": "u1", "event": "shown"}]}]}
            """)
        let failures = runs[0].steps[0].assertions.filter { !$0.passed }
        #expect(failures.count == 1)
        #expect(failures.first?.message?.contains(message) == true, "\(failures.map(\.message))")
    }
}
