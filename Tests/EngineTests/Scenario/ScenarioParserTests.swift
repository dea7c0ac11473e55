import Engine
import Rules
import Testing

/// A malformed scenario is reported with its file and JSON path, never run and never a crash.
@Suite struct ScenarioParserTests {
    static let rules = #"{"flags": {"a": {"when": {"always": true}}}}"#

    @Test(arguments: [
        (#"{"rules": {"flags": {}}, "steps": [{"name": "x"}]}"#, "/start"),
        (#"{"start": "2026-01-01T00:00:00Z", "steps": [{"name": "x"}]}"#, "/rules"),
        (#"{"start": "yesterday", "rules": {"flags": {}}, "steps": [{}]}"#, "/start"),
        (#"{"start": "2026-01-01T00:00:00Z", "rules": {"flags": {}}, "steps": []}"#, "/steps"),
        (#"{"start": "2026-01-01T00:00:00Z", "rules": {"flags": {}}, "steps": [{}], "colour": 1}"#, "/colour"),
        (#"{"start": "2026-01-01T00:00:00Z", "rules": {"flags": {}}, "steps": [{"advance": "soon"}]}"#, "/steps/0/advance"),
        (#"{"start": "2026-01-01T00:00:00Z", "rules": {"flags": {}}, "steps": [{"advance": "1s", "at": "2026-01-02T00:00:00Z"}]}"#, "/steps/0"),
        (#"{"start": "2026-01-02T00:00:00Z", "rules": {"flags": {}}, "steps": [{"at": "2026-01-01T00:00:00Z"}]}"#, "/steps/0/at"),
        (#"{"start": "2026-01-01T00:00:00Z", "rules": {"flags": {}}, "steps": [{"name": "a"}, {"name": "a"}]}"#, "/steps/1/name"),
        (
            #"{"start": "2026-01-01T00:00:00Z", "rules": {"flags": {}}, "steps": [{"do": [{"user": "u", "ops": [{"op": "increment", "counter": "c", "by": "two"}]}]}]}"#,
            "/steps/0/do/0/ops/0"
        ),
        (#"{"start": "2026-01-01T00:00:00Z", "rules": {"flags": {}}, "steps": [{"do": [{"user": "u", "op": "fly"}]}]}"#, "/steps/0/do/0"),
        (#"{"start": "2026-01-01T00:00:00Z", "rules": {"flags": {}}, "steps": [{"do": [{"donate": "e"}]}]}"#, "/steps/0/do/0/user"),
        (
            #"{"start": "2026-01-01T00:00:00Z", "rules": {"flags": {}}, "steps": [{"do": [{"donate": "e", "user": "u", "times": 0}]}]}"#,
            "/steps/0/do/0/times"
        ),
        (#"{"start": "2026-01-01T00:00:00Z", "rules": {"flags": {}}, "steps": [{"do": [{"donate": "e", "user": "\u0007"}]}]}"#, "/steps/0/do/0/user"),
        (
            #"{"start": "2026-01-01T00:00:00Z", "rules": {"flags": {}}, "steps": [{"do": [{"display": "tip", "user": "u", "event": "clicked"}]}]}"#,
            "/steps/0/do/0/event"
        ),
        (
            #"{"start": "2026-01-01T00:00:00Z", "rules": {"flags": {}}, "steps": [{"do": [{"display": "tip", "event": "shown"}]}]}"#,
            "/steps/0/do/0/user"
        ),
        (
            #"{"start": "2026-01-01T00:00:00Z", "rules": {"flags": {}}, "steps": [{"do": [{"display": "tip", "user": "u", "event": "shown", "at": "x"}]}]}"#,
            "/steps/0/do/0/at"
        ),
        (#"{"start": "2026-01-01T00:00:00Z", "rules": {"flags": {}}, "steps": [{"expect": [{"flag": "a", "user": "u"}]}]}"#, "/steps/0/expect/0"),
        (
            #"{"start": "2026-01-01T00:00:00Z", "rules": {"flags": {}}, "steps": [{"expect": [{"flag": "a", "user": "u", "reason": "MAYBE"}]}]}"#,
            "/steps/0/expect/0/reason"
        ),
        (
            #"{"start": "2026-01-01T00:00:00Z", "rules": {"flags": {}}, "steps": [{"expect": [{"fired": "t", "user": "u", "times": 2, "equals": false}]}]}"#,
            "/steps/0/expect/0/times"
        ),
        (#"{"start": "2026-01-01T00:00:00Z", "rules": {"flags": {"x": {"when": {"nope": 1}}}}, "steps": [{}]}"#, "/rules"),
        (#"{"start": "2026-01-01T00:00:00Z", "rules": {"flags": {}}, "users": {"u": {"counters": {"c": "many"}}}, "steps": [{}]}"#, "/users/u"),
        (#"{"start": "2026-01-01T00:00:00Z", "rules": {"flags": {}}, "tz": "Mars/Olympus", "steps": [{}]}"#, "/tz"),
        (
            #"{"start": "2026-01-01T00:00:00Z", "rules": {"flags": {}}, "configurations": [{"name": "a"}, {"name": "a"}], "steps": [{}]}"#,
            "/configurations/1/name"
        )
    ])
    func malformedScenario_isRefused_namingThePath(text: String, path: String) {
        #expect(throws: ScenarioError.self) { try ScenarioFixture.parse(text, file: "bad.json") }
        do {
            _ = try ScenarioFixture.parse(text, file: "bad.json")
        } catch {
            #expect(error.file == "bad.json")
            #expect(error.path == path, "\(error.message)")
        }
    }

    /// The daemon answers 400 to these versions (`Version.isValid`); a scenario took any string and ran with it.
    @Test(arguments: ["latest", "1.x", "", "1..2", String(repeating: "1.", count: 40) + "1"])
    func appVersionTheDaemonRefuses_isAFileError_namingItsPath(version: String) {
        let configuration =
            #"{"start": "2026-01-01T00:00:00Z", "rules": {"flags": {}}, "configurations": [{"name": "c", "appVersion": "\#(version)"}], "steps": [{}]}"#
        let donation =
            #"{"start": "2026-01-01T00:00:00Z", "rules": {"flags": {}}, "steps": [{"do": [{"donate": "e", "user": "u", "appVersion": "\#(version)"}]}]}"#
        for (text, path) in [(configuration, "/configurations/0/appVersion"), (donation, "/steps/0/do/0/appVersion")] {
            do {
                _ = try ScenarioFixture.parse(text, file: "bad.json")
                Issue.record("appVersion \(version) was accepted at \(path)")
            } catch {
                #expect(error.file == "bad.json")
                #expect(error.path == path, "\(error.message)")
            }
        }
    }

    @Test func validAppVersions_areKept() throws {
        let scenario = try ScenarioFixture.parse(
            #"{"start": "2026-01-01T00:00:00Z", "rules": {"flags": {}}, "configurations": [{"name": "c", "appVersion": "1.4.2"}], "#
                + #""steps": [{"do": [{"donate": "e", "user": "u", "appVersion": "2.0"}]}]}"#)
        #expect(scenario.configurations[0].appVersion == "1.4.2")
        guard case .donate(_, _, _, let version) = scenario.steps[0].actions[0].kind else {
            Issue.record("not a donation")
            return
        }
        #expect(version == "2.0")
    }

    @Test func inlineOp_andDefaults_areRead() throws {
        let scenario = try ScenarioFixture.parse(
            #"{"start": "2026-01-01T00:00:00Z", "rules": \#(Self.rules), "steps": [{"do": [{"user": "u1", "op": "increment", "counter": "c"}]}]}"#,
            file: "dir/inline-op.json")
        #expect(scenario.name == "inline-op")
        #expect(scenario.configurations.map(\.name) == ["default"])
        #expect(scenario.steps[0].name == "step 1")
        #expect(scenario.mentionedUsers == ["u1"])
        guard case .ops(let user, let ops) = scenario.steps[0].actions[0].kind else {
            Issue.record("expected ops")
            return
        }
        #expect(user == "u1")
        #expect(ops == [["op": "increment", "counter": "c"]])
    }

    @Test func canonicallyEquivalentUserIds_areTwoUsers() throws {
        let scenario = try ScenarioFixture.parse(
            #"{"start": "2026-01-01T00:00:00Z", "rules": \#(Self.rules), "users": {"caf\u00e9": {}, "cafe\u0301": {}}, "steps": [{}]}"#)
        #expect(scenario.mentionedUsers.count == 2)
    }
}
