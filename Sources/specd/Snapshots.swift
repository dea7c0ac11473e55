import Engine
import Foundation
import Rules

/// Recorded flag answers for `"snapshot": true` steps, at `<scenario>.snapshots/<configuration>/<step>.json`.
/// `--record` writes them; otherwise each is compared with its recording, and a difference (or a missing recording)
/// becomes a failed assertion named `snapshot <step>`.
struct Snapshots {
    let folder: String
    let record: Bool
    /// An earlier configuration of the same scenario whose name maps to the same folder, if any.
    let sharedWith: String?

    /// `earlier`: the configurations of the scenario already settled, whose folders this one must not share.
    init(scenarioFile: String, configuration: String, record: Bool, earlier: [String] = []) {
        let base = scenarioFile.hasSuffix(".json") ? String(scenarioFile.dropLast(5)) : scenarioFile
        folder = (base + ".snapshots" as NSString).appendingPathComponent(Self.fileName(configuration))
        self.record = record
        sharedWith = earlier.first { $0 != configuration && Self.fileName($0) == Self.fileName(configuration) }
    }

    /// A step or configuration name as one path component: no separators, no dot files, no control characters.
    static func fileName(_ name: String) -> String {
        var out = String(
            name.unicodeScalars.map { scalar -> Character in
                scalar == "/" || scalar == "\\" || scalar.value < 0x20 || scalar.value == 0x7F ? "_" : Character(scalar)
            })
        if out.hasPrefix(".") { out = "_" + out.dropFirst() }
        if out.isEmpty { out = "_" }
        return String(out.prefix(200))
    }

    /// Two names may map to one file (`before/vip` and `before_vip`): the second is refused, not written over the
    /// first, which `--record` did without a word (found in review).
    func settle(_ run: inout ScenarioRun) {
        var claimed: [String: String] = [:]
        for index in run.steps.indices {
            guard let snapshot = run.steps[index].snapshot else { continue }
            let name = run.steps[index].name
            let file = (folder as NSString).appendingPathComponent(Self.fileName(name) + ".json")
            let label = "snapshot \(name)"
            if let sharedWith {
                run.steps[index].assertions.append(
                    ScenarioRun.AssertionResult(
                        label: label, passed: false,
                        message: "configuration '\(run.configuration)' records into the same folder as '\(sharedWith)' (\(folder)): rename one"))
                continue
            }
            if let other = claimed.updateValue(name, forKey: file) {
                claimed[file] = other
                run.steps[index].assertions.append(
                    ScenarioRun.AssertionResult(
                        label: label, passed: false, message: "step '\(name)' records to the same file as step '\(other)' (\(file)): rename one"))
                continue
            }
            if record {
                do {
                    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                    try Data(PrettyJSON.string(snapshot).utf8).write(to: URL(fileURLWithPath: file))
                    run.steps[index].assertions.append(ScenarioRun.AssertionResult(label: label, passed: true, message: "recorded \(file)"))
                } catch {
                    run.steps[index].assertions.append(
                        ScenarioRun.AssertionResult(label: label, passed: false, message: "cannot write \(file): \(error.localizedDescription)"))
                }
                continue
            }
            guard let data = FileManager.default.contents(atPath: file) else {
                run.steps[index].assertions.append(
                    ScenarioRun.AssertionResult(label: label, passed: false, message: "no recording at \(file) (run specd test --record)"))
                continue
            }
            guard let recorded = try? JSONParser(maxDepth: 64, maxBytes: 64 << 20).parse(Array(data)) else {
                run.steps[index].assertions.append(ScenarioRun.AssertionResult(label: label, passed: false, message: "\(file) is not valid JSON"))
                continue
            }
            let passed = recorded == snapshot
            run.steps[index].assertions.append(
                ScenarioRun.AssertionResult(
                    label: label, passed: passed, expected: passed ? nil : Self.difference(recorded, snapshot).expected,
                    actual: passed ? nil : Self.difference(recorded, snapshot).actual, message: passed ? nil : "differs from \(file)"))
        }
    }

    /// Only the users and flags whose answers differ, so a failure names what changed.
    static func difference(_ recorded: JSONValue, _ current: JSONValue) -> (expected: JSONValue, actual: JSONValue) {
        guard case .object(let old) = recorded, case .object(let new) = current else { return (recorded, current) }
        var expected = JSONObject()
        var actual = JSONObject()
        for key in Set(old.keys).union(new.keys).sorted() where old[key] != new[key] {
            if case .object(let oldFlags)? = old[key], case .object(let newFlags)? = new[key] {
                var before = JSONObject()
                var after = JSONObject()
                for flag in Set(oldFlags.keys).union(newFlags.keys).sorted() where oldFlags[flag] != newFlags[flag] {
                    before[flag] = oldFlags[flag] ?? .null
                    after[flag] = newFlags[flag] ?? .null
                }
                expected[key] = .object(before)
                actual[key] = .object(after)
            } else {
                expected[key] = old[key] ?? .null
                actual[key] = new[key] ?? .null
            }
        }
        return (.object(expected), .object(actual))
    }
}
