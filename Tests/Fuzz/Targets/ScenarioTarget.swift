// libFuzzer target: scenario files (`specd test`). A generated scenario (inline rules, users, configurations,
// steps with clock moves and every action and assertion kind, some fields wrong) is parsed — refused with a path,
// never a trap — and, when it parses, run under every configuration twice: a run is a function of its file (the
// clock is virtual), so the two must agree on every assertion and snapshot. Clock moves stop after 500 due
// instants (the daemon's bound is a million): a step advancing fifty years through an hourly rule ran two minutes
// under the sanitizer, past the 20 s timeout, while the bound's own refusal is reached far more often this way.

func fuzzScenario(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var generator = ScenarioGenerator(FuzzInput(data, size))
    guard let document = generator.document() else { return 0 }
    if dumpInputs { dumpLine(JSONWriter.string(document)) }
    let scenario: Scenario
    do throws(ScenarioError) {
        scenario = try ScenarioParser.parse(document, file: "fuzz.json") { value, path throws(ScenarioError) in
            switch RuleSetCompiler.compile(value) {
            case .success(let set): return set
            case .failure: throw ScenarioError(file: "fuzz.json", path: path, message: "invalid rules")
            }
        }
    } catch {
        guard !error.message.isEmpty, error.path.hasPrefix("/") else { fatalError("a refusal without a path or message") }
        return 0
    }
    for configuration in scenario.configurations {
        let first = ScenarioRunner.run(scenario, configuration: configuration, maxInstantsPerStep: 500)
        let second = ScenarioRunner.run(scenario, configuration: configuration, maxInstantsPerStep: 500)
        guard first.steps.count == scenario.steps.count else { fatalError("a step was skipped") }
        for (one, other) in zip(first.steps, second.steps) {
            guard one.at == other.at, one.snapshot == other.snapshot,
                one.assertions.map(\.passed) == other.assertions.map(\.passed),
                one.assertions.map(\.actual) == other.assertions.map(\.actual)
            else { fatalError("two runs of one scenario disagree at step \(one.name)") }
        }
    }
    return 0
}
