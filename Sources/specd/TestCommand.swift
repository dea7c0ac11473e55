import Engine
import Foundation
import Rules

/// `specd test FILE|DIR... [--junit OUT.xml] [--record] [--timeout SECONDS]`: runs scenario files (README, "Testing
/// rules") through the engine with a virtual clock, prints one line per step and every failed assertion, and exits
/// 0 (all passed), 1 (an assertion failed, or a file's runs passed their deadline) or 2 (a file that cannot be read
/// or is malformed; the others still run).
enum TestCommand {
    /// A scenario file is read whole: bounded like a rule file.
    static let maxFileBytes = 64 << 20

    static func run(arguments: [String], output: (String) -> Void = { print($0) }) -> Int32 {
        var paths: [String] = []
        var junit: String?
        var record = false
        var timeout = ScenarioDeadline.defaultAllowance
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            switch argument {
            case "--junit":
                guard index + 1 < arguments.count else { return CommandLineInterface.usageFailure("--junit needs a file") }
                junit = arguments[index + 1]
                index += 1
            case "--record":
                record = true
            case "--timeout":
                // Fractions allowed: a test gives a file almost no time rather than writing a slow scenario.
                guard index + 1 < arguments.count, let seconds = Double(arguments[index + 1]), seconds > 0, seconds <= 86_400 else {
                    return CommandLineInterface.usageFailure("--timeout needs a number of seconds, more than 0 and at most 86400")
                }
                timeout = .milliseconds(Int64((seconds * 1000).rounded(.up)))
                index += 1
            default:
                if argument.hasPrefix("-") { return CommandLineInterface.usageFailure("unknown option '\(argument)' for test") }
                paths.append(argument)
            }
            index += 1
        }
        guard !paths.isEmpty else { return CommandLineInterface.usageFailure("test needs at least one FILE or DIR") }

        var fileErrors: [JUnitReport.FileError] = []
        var runs: [ScenarioRun] = []
        for file in scenarioFiles(paths, errors: &fileErrors, output: output) {
            let scenario: Scenario
            do throws(ScenarioError) {
                scenario = try load(file)
            } catch {
                output("error: \(error)")
                fileErrors.append(JUnitReport.FileError(file: file, message: "\(error)"))
                continue
            }
            var settled: [String] = []
            // One per file: its configurations share it, so a hundred of them are not each given the whole allowance.
            let deadline = ScenarioDeadline(timeout)
            for configuration in scenario.configurations {
                var run = ScenarioRunner.run(scenario, configuration: configuration, deadline: deadline)
                Snapshots(scenarioFile: file, configuration: configuration.name, record: record, earlier: settled).settle(&run)
                settled.append(configuration.name)
                report(run, configurations: scenario.configurations.count, output: output)
                runs.append(run)
            }
        }
        let assertions = runs.reduce(0) { $0 + $1.assertionCount }
        let failures = runs.reduce(0) { $0 + $1.failureCount }
        var malformed = !fileErrors.isEmpty
        if let junit {
            do {
                try Data(JUnitReport.xml(runs, fileErrors: fileErrors).utf8).write(to: URL(fileURLWithPath: junit))
            } catch {
                output("error: cannot write \(junit): \(error.localizedDescription)")
                malformed = true
            }
        }
        output(
            "test: \(runs.count) run(s), \(assertions) assertion(s), \(failures) failed"
                + (malformed ? ", some files could not be run" : ""))
        if malformed { return 2 }
        return failures > 0 ? 1 : 0
    }

    /// Files as given, and every `*.json` directly in a directory, sorted by name.
    static func scenarioFiles(_ paths: [String], errors: inout [JUnitReport.FileError], output: (String) -> Void) -> [String] {
        var files: [String] = []
        func fail(_ path: String, _ message: String) {
            output("error: \(path): \(message)")
            errors.append(JUnitReport.FileError(file: path, message: message))
        }
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                fail(path, "no such file or directory")
                continue
            }
            if isDirectory.boolValue {
                let names = ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).filter { $0.hasSuffix(".json") }.sorted()
                if names.isEmpty { fail(path, "no *.json scenario files in the directory") }
                files += names.map { (path as NSString).appendingPathComponent($0) }
            } else {
                files.append(path)
            }
        }
        return files
    }

    static func load(_ file: String) throws(ScenarioError) -> Scenario {
        guard let data = FileManager.default.contents(atPath: file) else {
            throw ScenarioError(file: file, path: JSONPointer(), message: "cannot read the file")
        }
        let document: JSONValue
        do {
            document = try JSONParser(maxDepth: 64, maxBytes: maxFileBytes).parse(Array(data))
        } catch {
            throw ScenarioError(file: file, path: JSONPointer(), message: "not valid JSON: \(error.description)")
        }
        let folder = (file as NSString).deletingLastPathComponent
        return try ScenarioParser.parse(document, file: file) { value, path throws(ScenarioError) in
            try rules(value, at: path, file: file, folder: folder)
        }
    }

    /// A rule set named by a scenario: a path relative to the scenario's folder, or an inline set. Its first
    /// diagnostic is reported with the rule file and path, as `specd validate` would.
    static func rules(_ value: JSONValue, at path: JSONPointer, file: String, folder: String) throws(ScenarioError) -> RuleSet {
        let result: Result<RuleSet, RuleSetError>
        switch value {
        case .string(let relative):
            let resolved = relative.hasPrefix("/") ? relative : (folder.isEmpty ? relative : (folder as NSString).appendingPathComponent(relative))
            result = RuleSetLoader.load(path: resolved)
        case .object:
            result = RuleSetCompiler.compile(value)
        default:
            throw ScenarioError(file: file, path: path, message: "rules are a path (relative to the scenario) or an inline rule set")
        }
        switch result {
        case .success(let set): return set
        case .failure(let error):
            let errors = error.diagnostics.filter { $0.severity == .error }
            let first = errors.first ?? error.diagnostics.first
            let place = first.map { "\($0.file.map { $0 + ": " } ?? "")\($0.path.isEmpty ? "/" : $0.path): \($0.message) [\($0.code)]" } ?? "invalid"
            let more = errors.count > 1 ? " (and \(errors.count - 1) more error(s); run specd validate)" : ""
            throw ScenarioError(file: file, path: path, message: "invalid rules: \(place)\(more)")
        }
    }

    static func report(_ run: ScenarioRun, configurations: Int, output: (String) -> Void) {
        let suffix = configurations > 1 || run.configuration != "default" ? " [\(run.configuration)]" : ""
        output("\(run.scenario)\(suffix) (\(run.file))")
        for step in run.steps {
            let passed = step.assertions.filter(\.passed).count
            let mark = step.passed ? "ok  " : "FAIL"
            let milliseconds = Double(step.elapsed.components.attoseconds) / 1e15 + Double(step.elapsed.components.seconds) * 1000
            output(
                "  \(mark) \(step.name)\(suffix): \(passed)/\(step.assertions.count) at \(ISO8601.format(step.at)) "
                    + "(\(String(format: "%.1f", milliseconds)) ms)")
            for assertion in step.assertions where !assertion.passed { output("       ✗ \(assertion.label): \(failureText(assertion))") }
        }
    }

    static func failureText(_ assertion: ScenarioRun.AssertionResult) -> String {
        var parts: [String] = []
        if let message = assertion.message { parts.append(message) }
        if let expected = assertion.expected { parts.append("expected \(JSONWriter.string(expected))") }
        if let actual = assertion.actual { parts.append("actual \(JSONWriter.string(actual))") }
        return parts.joined(separator: ", ")
    }
}
