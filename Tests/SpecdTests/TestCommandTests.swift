import Foundation
import Testing

@testable import specd

#if canImport(FoundationXML)
import FoundationXML
#endif

/// `specd test` as a rule author runs it: files and folders, exit codes, the report, JUnit XML and snapshots.
@Suite struct TestCommandTests {
    static let rules = #"{"flags": {"late": {"when": {"sinceLaunch": "1m"}}}}"#

    static func scenario(expecting value: Bool, snapshot: Bool = false) -> String {
        """
        {"name": "late flag", "start": "2026-01-01T09:00:00Z", "rules": "rules/rules.json", "users": {"u1": {}},
         "steps": [{"name": "a minute in", "advance": "1m", "snapshot": \(snapshot),
                    "expect": [{"label": "late now", "flag": "late", "user": "u1", "equals": \(value)}]}]}
        """
    }

    func folder(_ files: [String: String]) throws -> String {
        let path = NSTemporaryDirectory() + "specd-test-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        // Rules live beside the scenarios, not among them: every *.json directly in a folder is a scenario.
        try FileManager.default.createDirectory(atPath: path + "/rules", withIntermediateDirectories: true)
        for (name, text) in files {
            let file = name == "rules.json" ? path + "/rules/rules.json" : path + "/" + name
            try text.write(toFile: file, atomically: true, encoding: .utf8)
        }
        return path
    }

    func run(_ arguments: [String]) -> (code: Int32, lines: [String]) {
        var lines: [String] = []
        let code = TestCommand.run(arguments: arguments) { lines.append($0) }
        return (code, lines)
    }

    @Test func passingFolder_exitsZero_withOneLinePerStep() throws {
        let dir = try folder(["rules.json": Self.rules, "late.json": Self.scenario(expecting: true)])
        let (code, lines) = run([dir])
        #expect(code == 0)
        #expect(lines.contains { $0.contains("ok   a minute in: 1/1 at 2026-01-01T09:01:00Z") })
        #expect(lines.last == "test: 1 run(s), 1 assertion(s), 0 failed")
    }

    @Test func failedAssertion_exitsOne_andPrintsLabelExpectedAndActual() throws {
        let dir = try folder(["rules.json": Self.rules, "late.json": Self.scenario(expecting: false)])
        let (code, lines) = run([dir + "/late.json"])
        #expect(code == 1)
        #expect(lines.contains { $0.contains("✗ late now:") && $0.contains(#"expected {"value":false}"#) && $0.contains(#"actual {"value":true}"#) })
    }

    @Test func malformedFile_exitsTwo_namingFileAndPath_andTheOthersStillRun() throws {
        let dir = try folder([
            "rules.json": Self.rules, "a-good.json": Self.scenario(expecting: true),
            "b-bad.json": #"{"start": "2026-01-01T09:00:00Z", "rules": "rules/rules.json", "steps": [{"advance": "later"}]}"#,
            "c-broken.json": "{not json"
        ])
        let (code, lines) = run([dir])
        #expect(code == 2)
        #expect(lines.contains { $0.contains("b-bad.json: /steps/0/advance:") })
        #expect(lines.contains { $0.contains("c-broken.json: /: not valid JSON") })
        #expect(lines.contains { $0.contains("ok   a minute in") })
    }

    @Test func missingRuleFile_isMalformed_namingTheRulesField() throws {
        let dir = try folder(["s.json": #"{"start": "2026-01-01T09:00:00Z", "rules": "nowhere.json", "steps": [{}]}"#])
        let (code, lines) = run([dir])
        #expect(code == 2)
        #expect(lines.contains { $0.contains("s.json: /rules: invalid rules:") && $0.contains("nowhere.json") })
    }

    @Test func junitXML_hasASuitePerRun_andATestcasePerAssertion_withFailures() throws {
        let dir = try folder(["rules.json": Self.rules, "late.json": Self.scenario(expecting: false)])
        let out = dir + "/report.xml"
        #expect(run([dir + "/late.json", "--junit", out]).code == 1)
        let data = try #require(FileManager.default.contents(atPath: out))
        let reader = JUnitReader()
        let parser = XMLParser(data: data)
        parser.delegate = reader
        #expect(parser.parse())
        #expect(reader.suites == ["late flag [default]"])
        #expect(reader.testcases == ["a minute in: late now"])
        #expect(reader.failures.count == 1)
        #expect(reader.failures[0].contains("expected"))
    }

    /// A file that cannot be run is in the report as an error of its own, beside the runs of the others: a CI job
    /// that reads only the report does not see it as nothing to test.
    @Test func junitXML_namesAFileThatCouldNotBeRun_asAnError() throws {
        let dir = try folder(["rules.json": Self.rules, "late.json": Self.scenario(expecting: true), "broken.json": "{"])
        let out = dir + "/report.xml"
        #expect(run([dir, dir + "/missing.json", "--junit", out]).code == 2)
        let data = try #require(FileManager.default.contents(atPath: out))
        let reader = JUnitReader()
        let parser = XMLParser(data: data)
        parser.delegate = reader
        #expect(parser.parse())
        #expect(reader.suites == [dir + "/missing.json", dir + "/broken.json", "late flag [default]"])
        #expect(reader.errors.count == 2)
        #expect(reader.errors.contains { $0.contains("not valid JSON") })
        #expect(reader.errors.contains { $0.contains("no such file or directory") })
        #expect(reader.failures.isEmpty)
    }

    @Test func snapshots_recordThenCompare_andADifferenceFails() throws {
        let dir = try folder(["rules.json": Self.rules, "late.json": Self.scenario(expecting: true, snapshot: true)])
        let file = dir + "/late.json"
        #expect(run([file]).code == 1) // nothing recorded yet
        #expect(run([file, "--record"]).code == 0)
        #expect(FileManager.default.fileExists(atPath: dir + "/late.snapshots/default/a minute in.json"))
        #expect(run([file]).code == 0)
        // The rules change under the recording: the snapshot names the flag that differs.
        try #"{"flags": {"late": {"when": {"sinceLaunch": "2m"}}}}"#.write(toFile: dir + "/rules/rules.json", atomically: true, encoding: .utf8)
        let (code, lines) = run([file])
        #expect(code == 1)
        #expect(lines.contains { $0.contains("✗ snapshot a minute in: differs from") && $0.contains(#""late""#) })
    }

    /// `before/vip` and `before_vip` mapped to one file: `--record` reported both recorded and kept the second, so
    /// the next run failed (or passed wrongly when the two agreed). The second is refused instead; configurations
    /// whose names share a folder likewise (found in review).
    @Test func snapshotNamesMappingToOneFile_areRefused_notWrittenOver() throws {
        let steps =
            #"{"start": "2026-01-01T00:00:00Z", "rules": {"flags": {"f": {"when": {"segment": "vip"}}}}, "users": {"u1": {}}, "#
            + #""steps": [{"name": "before/vip", "snapshot": true}, {"name": "add", "do": [{"user": "u1", "op": "addSegment", "segment": "vip"}]}, "#
            + #"{"name": "before_vip", "snapshot": true}]}"#
        let configurations =
            #"{"start": "2026-01-01T00:00:00Z", "rules": {"flags": {"f": {"when": {"always": true}}}}, "users": {"u1": {}}, "#
            + #""configurations": [{"name": "a/b"}, {"name": "a_b"}], "steps": [{"name": "s", "snapshot": true}]}"#
        let dir = try folder(["rules.json": Self.rules, "collide.json": steps, "configs.json": configurations])
        let (code, lines) = run([dir + "/collide.json", "--record"])
        #expect(code == 1)
        #expect(lines.contains { $0.contains("step 'before_vip' records to the same file as step 'before/vip'") })
        let recorded = try String(contentsOfFile: dir + "/collide.snapshots/default/before_vip.json", encoding: .utf8)
        #expect(recorded.contains("false"))
        let (configCode, configLines) = run([dir + "/configs.json", "--record"])
        #expect(configCode == 1)
        #expect(configLines.contains { $0.contains("configuration 'a_b' records into the same folder as 'a/b'") })
    }

    /// A file's configurations share one deadline: each of up to 100 had every bound afresh. The second
    /// configuration finds the deadline already passed at its first due instant, still at the start.
    @Test func fileDeadline_isSharedByItsConfigurations_andFailsTheStepNamingIt() throws {
        let flags = stride(from: 0, to: 24, by: 2).map { #""h\#($0)": {"when": {"hourIn": [\#($0), \#($0)]}}"# }.joined(separator: ", ")
        let users = (0..<50).map { #""u\#($0)": {}"# }.joined(separator: ", ")
        let dir = try folder([
            "rules.json": #"{"flags": {\#(flags)}}"#,
            "slow.json":
                #"{"start": "2026-01-01T00:00:00Z", "tz": "UTC", "rules": "rules/rules.json", "users": {\#(users)}, "#
                + #""configurations": [{"name": "first"}, {"name": "second"}], "steps": [{"name": "far", "advance": "999999999999s"}]}"#
        ])
        let (code, lines) = run([dir, "--timeout", "0.2"])
        #expect(code == 1)
        let failures = lines.filter { $0.contains("✗ deadline: the file's runs passed their 0.2 s wall-clock deadline") }
        #expect(failures.count == 2, "\(lines)")
        #expect(failures.allSatisfy { $0.contains("in step 'far', in its clock move to") })
        #expect(failures.last?.contains(", at 2026-01-01T00:00:00Z (the due instants after it") == true, "\(failures)")
    }

    @Test(arguments: ["0", "-1", "soon", "86401"])
    func timeoutThatIsNotAPositiveNumberOfSeconds_isAUsageError(value: String) throws {
        let dir = try folder(["rules.json": Self.rules, "late.json": Self.scenario(expecting: true)])
        #expect(run([dir, "--timeout", value]).code == 1)
        #expect(run([dir, "--timeout", "30"]).code == 0)
    }

    @Test func exampleScenarios_shipWithTheRepository_andPass() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
        let (code, lines) = run([root + "/config/scenarios"])
        #expect(code == 0, "\(lines.filter { $0.contains("✗") || $0.contains("error") })")
    }
}

/// Collects what a JUnit consumer reads.
final class JUnitReader: NSObject, XMLParserDelegate {
    var suites: [String] = []
    var testcases: [String] = []
    var failures: [String] = []
    var errors: [String] = []

    func parser(
        _ parser: XMLParser, didStartElement element: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]
    ) {
        switch element {
        case "testsuite": suites.append(attributes["name"] ?? "")
        case "testcase": testcases.append(attributes["name"] ?? "")
        case "failure": failures.append(attributes["message"] ?? "")
        case "error": errors.append(attributes["message"] ?? "")
        default: break
        }
    }
}
