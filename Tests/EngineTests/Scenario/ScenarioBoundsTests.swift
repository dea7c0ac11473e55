import Engine
import Foundation
import Rules
import Testing

/// A scenario file is input too: what it may ask of `specd test` is bounded in time and memory (found in review:
/// each of these ran for minutes or past 2 GB). Hang guards, not speed targets.
@Suite struct ScenarioBoundsTests {
    /// 600 actions of 10 000 donations each got around `times`' bound: 25 s and 1.8 GB.
    @Test func actionsPastTheFileBound_areRefused() throws {
        let actions = Array(repeating: #"{"donate": "e", "user": "u1", "times": 10000}"#, count: 101).joined(separator: ", ")
        let text =
            #"{"start": "2026-01-01T00:00:00Z", "rules": {"flags": {}}, "users": {"u1": {}}, "steps": [{"name": "many", "do": [\#(actions)]}]}"#
        #expect(throws: ScenarioError.self) { try ScenarioFixture.parse(text) }
        do {
            _ = try ScenarioFixture.parse(text)
        } catch {
            #expect(error.message.contains("\(ScenarioParser.maxActions) actions"))
        }
    }

    static let hourlyFlags = stride(from: 0, to: 24, by: 2).map { #""h\#($0)": {"when": {"hourIn": [\#($0), \#($0)]}}"# }.joined(separator: ", ")

    /// Ten-thousand-year moves over hourly flags with fifty users: every instant re-evaluated every user, past 2 GB and
    /// minutes. The run stops at its evaluation budget, reported on the step, and later steps stop at once.
    @Test func farClockMovesWithManyUsers_stopAtTheRunsBudget() throws {
        let users = (0..<50).map { #""u\#($0)": {}"# }.joined(separator: ", ")
        let scenario = try ScenarioFixture.parse(
            #"{"start": "2026-01-01T00:00:00Z", "tz": "UTC", "rules": {"flags": {\#(Self.hourlyFlags)}}, "users": {\#(users)}, "#
                + #""steps": [{"name": "far", "advance": "999999999999s"}, {"name": "farther", "advance": "999999999999s"}]}"#)
        let clock = ContinuousClock()
        let started = clock.now
        let run = ScenarioRunner.run(scenario, configuration: scenario.configurations[0], maxEvaluations: 60_000)
        #expect(clock.now - started < .seconds(120))
        for step in run.steps {
            #expect(step.assertions.contains { $0.message?.contains("passed 60000 flag evaluations") == true }, "\(step.name)")
        }
    }

    /// The instant and evaluation bounds count work, not what it costs, so a file within them could still run for
    /// hours. With those bounds lifted, a ten-thousand-year move stops at the file's wall-clock deadline, in the loop
    /// over due instants: the step names it, the clock still ends at the step's instant, and no later step runs.
    @Test func farClockMove_pastTheFilesDeadline_stopsInTheMove_namingTheStep() throws {
        let scenario = try ScenarioFixture.parse(
            #"{"start": "2026-01-01T00:00:00Z", "tz": "UTC", "rules": {"flags": {\#(Self.hourlyFlags)}}, "users": {"u1": {}}, "#
                + #""steps": [{"name": "far", "advance": "999999999999s"}, {"name": "never", "advance": "1s"}]}"#)
        let clock = ContinuousClock()
        let started = clock.now
        let run = ScenarioRunner.run(
            scenario, configuration: scenario.configurations[0], maxInstantsPerStep: .max, maxEvaluations: .max,
            deadline: ScenarioDeadline(.milliseconds(50)))
        #expect(clock.now - started < .seconds(60))
        #expect(run.steps.map(\.name) == ["far"])
        let failure = try #require(run.steps[0].assertions.first)
        #expect(failure.label == "deadline" && !failure.passed)
        #expect(
            failure.message?.contains("passed their 0.05 s wall-clock deadline (every configuration together) in step 'far', in its clock move")
                == true)
        #expect(run.steps[0].at == scenario.start + 999_999_999_999_000)
    }

    /// The deadline is checked before each action too: a step's actions stop there and its assertions are not
    /// checked against a state it never reached.
    @Test func actionsPastTheFilesDeadline_areNotRun_andTheStepSaysWhere() throws {
        let scenario = try ScenarioFixture.parse(
            #"{"start": "2026-01-01T00:00:00Z", "rules": {"flags": {}}, "#
                + #""steps": [{"name": "donations", "do": [{"donate": "e", "user": "u1"}, {"donate": "e", "user": "u1"}], "#
                + #""expect": [{"donations": "e", "user": "u1", "equals": 2}]}, {"name": "never"}]}"#)
        let run = ScenarioRunner.run(scenario, configuration: scenario.configurations[0], deadline: ScenarioDeadline(.zero))
        #expect(run.steps.map(\.name) == ["donations"])
        #expect(run.steps[0].assertions.count == 1)
        #expect(run.steps[0].assertions[0].label == "deadline")
        #expect(run.steps[0].assertions[0].message?.contains("in step 'donations', before action 1 (/steps/0/do/0)") == true)
    }

    /// A step's stream keeps 10 000 events; past that, the step says its events are incomplete.
    @Test func aStepHearingPastTheBound_saysItsEventsAreIncomplete() throws {
        let scenario = try ScenarioFixture.parse(
            #"{"start": "2026-01-01T00:00:00Z", "tz": "UTC", "rules": {"flags": {\#(Self.hourlyFlags)}}, "users": {"u1": {}}, "#
                + #""steps": [{"name": "long", "advance": "600d"}]}"#)
        let run = ScenarioRunner.run(scenario, configuration: scenario.configurations[0])
        #expect(run.steps[0].assertions.contains { $0.message?.contains("events past the 10000 a step keeps") == true })
    }

    /// Merging a configuration's 40 000 segments into a user's 40 000 scanned the user's list per added one: 19 s.
    @Test func configurationSegments_mergeWithoutAScanPerSegment() throws {
        let own = (0..<40_000).map { #""a\#($0)""# }.joined(separator: ",")
        let added = (0..<40_000).map { #""b\#($0)""# }.joined(separator: ",") + #","a0""#
        let text =
            #"{"start": "2026-01-01T00:00:00Z", "rules": {"flags": {"x": {"when": {"segment": "b39999"}}}}, "users": {"u1": {"segments": [\#(own)]}}, "#
            + #""configurations": [{"name": "c", "context": {"segments": [\#(added)]}}], "#
            + #""steps": [{"name": "s", "expect": [{"flag": "x", "user": "u1", "equals": true}]}]}"#
        let document = try JSONParser(maxDepth: 64, maxBytes: 8 << 20).parse(text)
        let scenario = try ScenarioParser.parse(document, file: "segments.json") { value, _ throws(ScenarioError) in
            try! RuleSetCompiler.compile(value).get()
        }
        let clock = ContinuousClock()
        let started = clock.now
        let run = ScenarioRunner.run(scenario, configuration: scenario.configurations[0])
        #expect(clock.now - started < .seconds(60))
        #expect(run.passed, "\(run.steps.flatMap(\.assertions).compactMap(\.message))")
    }
}
