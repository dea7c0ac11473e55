import Engine
import Rules

/// Parses scenario text with inline rules only (no file system), as `specd test` would.
enum ScenarioFixture {
    static func parse(_ text: String, file: String = "scenario.json") throws(ScenarioError) -> Scenario {
        let document: JSONValue
        do {
            document = try JSONParser(maxDepth: 64).parse(text)
        } catch {
            throw ScenarioError(file: file, path: JSONPointer(), message: "not JSON: \(error)")
        }
        return try ScenarioParser.parse(document, file: file) { value, path throws(ScenarioError) in
            switch RuleSetCompiler.compile(value) {
            case .success(let set): return set
            case .failure(let error):
                throw ScenarioError(
                    file: file, path: path,
                    message: "invalid rules: \(error.diagnostics.first?.path ?? ""): \(error.diagnostics.first?.message ?? "")")
            }
        }
    }

    /// Runs every configuration; the scenario must parse.
    static func run(_ text: String) throws -> [ScenarioRun] {
        let scenario = try parse(text)
        return scenario.configurations.map { ScenarioRunner.run(scenario, configuration: $0) }
    }

    /// One rule set with a delayed trigger in the given mode and no throttle, a flag that turns on 10 s after an event.
    static func delayedRules(mode: String) -> String {
        """
        {"flags": {"fresh": {"when": {"not": {"timeSince": {"event": "touched", "atLeast": "10s"}}}}},
         "triggers": {"nudge": {"on": ["tap"], "when": {"always": true}, "delay": "2s", "delayMode": "\(mode)"}}}
        """
    }
}
