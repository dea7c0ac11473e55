import Engine
import Rules
import Testing

/// The runner drives the daemon's engine with a virtual clock: what each step's actions, clock moves and
/// assertions see, and how failures are reported.
@Suite struct ScenarioRunnerTests {
    @Test func passingScenario_everyAssertionPasses() throws {
        let runs = try ScenarioFixture.run(
            """
            {"start": "2026-01-01T09:00:00Z", "rules": {"flags": {"vip": {"when": {"segment": "vip"}}}},
             "users": {"u1": {}},
             "steps": [{"name": "join", "do": [{"user": "u1", "op": "addSegment", "segment": "vip"}],
                        "expect": [{"label": "vip now", "flag": "vip", "user": "u1", "equals": true, "reason": "TARGETING_MATCH"},
                                   {"segment": "vip", "user": "u1", "equals": true}]}]}
            """)
        #expect(runs.count == 1)
        #expect(runs[0].configuration == "default")
        #expect(runs[0].passed)
        #expect(runs[0].assertionCount == 2)
        #expect(runs[0].steps[0].assertions[0].label == "vip now")
    }

    @Test func failingAssertion_reportsItsLabel_expected_andActual() throws {
        let runs = try ScenarioFixture.run(
            """
            {"start": "2026-01-01T09:00:00Z", "rules": {"flags": {"vip": {"when": {"segment": "vip"}}}},
             "steps": [{"name": "nothing", "expect": [{"label": "wrongly hoped", "flag": "vip", "user": "u1", "equals": true},
                                                     {"counter": "c", "user": "u1", "equals": 2}]}]}
            """)
        let assertions = runs[0].steps[0].assertions
        #expect(!runs[0].passed)
        #expect(runs[0].failureCount == 2)
        #expect(assertions[0].label == "wrongly hoped")
        #expect(assertions[0].expected == ["value": true])
        #expect(assertions[0].actual == ["value": false])
        #expect(assertions[1].label == "counter c of u1 equals 2")
        #expect(assertions[1].actual == .int(0))
    }

    @Test func eachMode_twoDonationsOneSecondApart_fireTwice_atTheirOwnInstants() throws {
        let runs = try ScenarioFixture.run(
            """
            {"start": "2026-01-01T09:00:00Z", "rules": \(ScenarioFixture.delayedRules(mode: "each")),
             "steps": [{"name": "tap", "do": [{"donate": "tap", "user": "u1"}]},
                       {"name": "tap again", "advance": "1s", "do": [{"donate": "tap", "user": "u1"}]},
                       {"name": "both delays end", "advance": "5s",
                        "expect": [{"fired": "nudge", "user": "u1", "times": 2},
                                   {"user": "u1", "events": [{"type": "trigger", "trigger": "nudge", "at": "2026-01-01T09:00:02Z"},
                                                             {"type": "trigger", "trigger": "nudge", "at": "2026-01-01T09:00:03Z"}]}]}]}
            """)
        #expect(runs[0].passed, "\(runs[0].steps.last!.assertions)")
    }

    @Test(arguments: [("restart", "2026-01-01T09:00:03Z"), ("first", "2026-01-01T09:00:02Z")])
    func otherDelayModes_fireOnce(mode: String, at instant: String) throws {
        let runs = try ScenarioFixture.run(
            """
            {"start": "2026-01-01T09:00:00Z", "rules": \(ScenarioFixture.delayedRules(mode: mode)),
             "steps": [{"name": "tap", "do": [{"donate": "tap", "user": "u1"}]},
                       {"name": "tap again", "advance": "1s", "do": [{"donate": "tap", "user": "u1"}]},
                       {"name": "delays end", "advance": "5s",
                        "expect": [{"fired": "nudge", "user": "u1", "times": 1},
                                   {"user": "u1", "events": [{"type": "trigger", "trigger": "nudge", "at": "\(instant)"}]}]}]}
            """)
        #expect(runs[0].passed, "\(runs[0].steps.last!.assertions)")
    }

    @Test func clockDrivenChange_insideAdvance_isPushedAtItsInstant_andOnlyOnce() throws {
        let runs = try ScenarioFixture.run(
            """
            {"start": "2026-01-01T09:00:00Z", "rules": \(ScenarioFixture.delayedRules(mode: "each")),
             "steps": [{"name": "touched", "do": [{"user": "u1", "op": "recordEvent", "event": "touched"}],
                        "expect": [{"flag": "fresh", "user": "u1", "equals": true, "validUntil": "2026-01-01T09:00:10Z"},
                                   {"user": "u1", "events": [{"type": "flag", "key": "fresh", "value": true, "previous": false, "seq": 1}]}]},
                       {"name": "a minute later", "advance": "1m",
                        "expect": [{"flag": "fresh", "user": "u1", "equals": false, "validUntil": null},
                                   {"user": "u1", "events": [{"type": "flag", "key": "fresh", "value": false, "previous": true, "reason": "DEFAULT"}]}]}]}
            """)
        #expect(runs[0].passed, "\(runs[0].steps.map(\.assertions))")
    }

    /// A clock move through more due instants than the bound is reported on its step as a failed "clock" assertion
    /// naming the step's span, and the clock still reaches the step's instant: it stopped at the last instant run,
    /// and every later step ran that much early. What was overdue runs once there, heard in that step.
    @Test func clockMove_pastTheInstantBound_failsItsStep_andTheClockStillReachesTheStepsInstant() throws {
        let scenario = try ScenarioFixture.parse(
            """
            {"start": "2026-01-01T00:30:00Z", "tz": "UTC", "rules": {"flags": {"morning": {"when": {"hourIn": [6, 11]}}}},
             "users": {"u1": {}},
             "steps": [{"name": "ten days", "advance": "10d"},
                       {"name": "after", "advance": "1h", "expect": [{"flag": "morning", "user": "u1", "equals": false}, {"user": "u1", "events": []}]}]}
            """)
        let bounded = ScenarioRunner.run(scenario, configuration: scenario.configurations[0], maxInstantsPerStep: 5)
        let clock = try #require(bounded.steps[0].assertions.first)
        #expect(!clock.passed && clock.label == "clock")
        #expect(clock.message?.contains("the step's move from 2026-01-01T00:30:00Z to 2026-01-11T00:30:00Z has more than 5 due instants") == true)
        #expect(ISO8601.format(bounded.steps[0].at) == "2026-01-11T00:30:00Z")
        #expect(ISO8601.format(bounded.steps[1].at) == "2026-01-11T01:30:00Z")
        #expect(bounded.steps[1].passed, "\(bounded.steps[1].assertions)")
        // Twenty boundaries in ten days: within the daemon's bound, every one is run.
        let full = ScenarioRunner.run(scenario, configuration: scenario.configurations[0])
        #expect(full.passed, "\(full.steps.map(\.assertions))")
    }

    /// A `fired` assertion on a trigger the rules do not define fails, as a `flag` assertion on an unknown key does:
    /// "fired 0 times" passed for a misspelt trigger.
    @Test(arguments: [#""times": 0"#, #""equals": false"#, #""times": 1"#])
    func firedAssertion_onAnUndefinedTrigger_fails(expectation: String) throws {
        let runs = try ScenarioFixture.run(
            """
            {"start": "2026-01-01T09:00:00Z", "rules": \(ScenarioFixture.delayedRules(mode: "each")),
             "steps": [{"name": "check", "expect": [{"fired": "no-such-trigger", "user": "u1", \(expectation)},
                                                   {"fired": "nudge", "user": "u1", "times": 0}]}]}
            """)
        let assertions = runs[0].steps[0].assertions
        #expect(!assertions[0].passed)
        #expect(assertions[0].message == "trigger 'no-such-trigger' is not defined in the rules")
        #expect(assertions[1].passed)
    }

    /// Stored integers past 2^53 are compared exactly: a counter of 2^53 + 1 matched an `equals` of 2^53.
    @Test func integersPast2To53_matchOnlyTheExactValue() throws {
        let runs = try ScenarioFixture.run(
            """
            {"start": "2026-01-01T09:00:00Z", "rules": {"flags": {}},
             "steps": [{"name": "big", "do": [{"user": "u1", "op": "increment", "counter": "c", "by": 9007199254740993}],
                        "expect": [{"counter": "c", "user": "u1", "equals": 9007199254740992},
                                   {"counter": "c", "user": "u1", "equals": 9007199254740993}]}]}
            """)
        let assertions = runs[0].steps[0].assertions
        #expect(!assertions[0].passed)
        #expect(assertions[1].passed)
    }

    @Test func configurations_runTheScenarioOncePerEntry_withTheirContextAndVersion() throws {
        let runs = try ScenarioFixture.run(
            """
            {"start": "2026-01-01T09:00:00Z", "tz": "UTC",
             "rules": {"flags": {"new-ui": {"when": {"all": [{"appVersion": {"gte": "2.0"}}, {"segment": "beta"}]}},
                                 "morning": {"when": {"hourIn": [6, 11]}}}},
             "users": {"u1": {"segments": ["beta"]}},
             "configurations": [{"name": "v2", "appVersion": "2.0"}, {"name": "v3 in Tokyo", "appVersion": "3.1", "tz": "Asia/Tokyo",
                                 "context": {"segments": ["staff"]}}],
             "steps": [{"name": "check", "expect": [{"flag": "new-ui", "user": "u1", "equals": true}, {"segment": "staff", "user": "u1", "equals": true}]}]}
            """)
        #expect(runs.map(\.configuration) == ["v2", "v3 in Tokyo"])
        #expect(!runs[0].passed) // v2 has no staff segment
        #expect(runs[0].steps[0].assertions[0].passed)
        #expect(runs[1].passed)
    }

    /// A configuration's `context.tz` is the user's own zone: the top-level `tz` was applied over it (the user was
    /// checked for a zone before the configuration's context was merged), so "utc-users" ran in Tokyo.
    @Test func configurationContextZone_winsOverTheScenariosZone() throws {
        let runs = try ScenarioFixture.run(
            """
            {"start": "2026-01-01T12:00:00Z", "tz": "Asia/Tokyo", "rules": {"flags": {"nine-pm": {"when": {"hourIn": [21, 21]}}}},
             "users": {"u1": {}},
             "configurations": [{"name": "utc-users", "context": {"tz": "UTC"}}, {"name": "tokyo"}],
             "steps": [{"name": "noon UTC", "expect": [{"flag": "nine-pm", "user": "u1", "equals": false}]}]}
            """)
        #expect(runs[0].steps[0].assertions[0].passed, "\(runs[0].steps[0].assertions[0])")
        // Without a zone in its context, the configuration falls back to the scenario's: 21:00 in Tokyo.
        #expect(!runs[1].steps[0].assertions[0].passed)
    }

    @Test func resetEraseAndReload_goThroughTheEngine() throws {
        let runs = try ScenarioFixture.run(
            """
            {"start": "2026-01-01T09:00:00Z", "rules": {"flags": {"started": {"when": {"donations": {"event": "open", "gte": 1}}}}},
             "steps": [{"name": "open", "do": [{"donate": "open", "user": "u1", "times": 3}],
                        "expect": [{"donations": "open", "user": "u1", "equals": 3}, {"flag": "started", "user": "u1", "equals": true}]},
                       {"name": "reset", "do": [{"reset": "open", "user": "u1"}],
                        "expect": [{"donations": "open", "user": "u1", "equals": {"count": 0}}, {"flag": "started", "user": "u1", "equals": false}]},
                       {"name": "reload", "do": [{"reload": {"flags": {"started": {"when": {"always": true}}}}}],
                        "expect": [{"flag": "started", "user": "u1", "equals": true},
                                   {"user": "u1", "events": [{"type": "rules"}, {"type": "flag", "key": "started", "value": true}]}]},
                       {"name": "erase", "do": [{"donate": "open", "user": "u1"}, {"erase": "u1"}],
                        "expect": [{"donations": "open", "user": "u1", "equals": 0}]}]}
            """)
        #expect(runs[0].passed, "\(runs[0].steps.map(\.assertions))")
    }

    @Test func refusedAction_isAFailedAssertion_notACrash() throws {
        let runs = try ScenarioFixture.run(
            """
            {"start": "2026-01-01T09:00:00Z", "rules": {"flags": {}},
             "steps": [{"name": "overflow", "do": [{"user": "u1", "op": "setCounter", "counter": "c", "value": 9223372036854775807},
                                                   {"user": "u1", "op": "increment", "counter": "c"}]}]}
            """)
        let assertions = runs[0].steps[0].assertions
        #expect(assertions.count == 1)
        #expect(!assertions[0].passed)
        #expect(assertions[0].label.hasPrefix("action 2"))
    }

    @Test func snapshotStep_recordsEveryFlagOfEveryUser() throws {
        let runs = try ScenarioFixture.run(
            """
            {"start": "2026-01-01T09:00:00Z", "rules": {"flags": {"a": {"when": {"always": true}}, "b": {"cases": [{"when": {"always": false}, "value": 1}], "fallback": 3}}},
             "users": {"u1": {}, "u2": {}}, "steps": [{"name": "look", "snapshot": true}]}
            """)
        let snapshot = try #require(runs[0].steps[0].snapshot)
        #expect(snapshot["u1"]?["a"]?["value"] == true)
        #expect(snapshot["u2"]?["b"]?["value"] == 3)
    }
}
