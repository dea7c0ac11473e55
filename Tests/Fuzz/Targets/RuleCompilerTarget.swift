// libFuzzer target: the rule-set compiler answers any document with diagnostics or a rule set, never a trap.
//
// Input: byte 0 picks the mode and format. Even modes read the rest as a rule file (bytes as JSON, as the loader
// reads them); odd modes build a rule document from the bytes (every spec node, flag shape, trigger, flagd
// definition and JSON Logic operator), so the fuzzer reaches deep into the compiler instead of the JSON parser.

func fuzzRuleCompiler(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let control = input.byte()
    let format = RuleSetCompiler.Format.allCases[Int(control >> 1) % RuleSetCompiler.Format.allCases.count]
    let document: JSONValue
    if control & 1 == 0 {
        switch RuleSetLoader.parse(input.remaining, file: "fuzz") {
        case .failure(let error):
            guard !error.errors.isEmpty else { fatalError("a refused file without an error") }
            return 0
        case .success(let value):
            document = value
        }
    } else {
        var generator = RuleGenerator(input, chaos: true)
        document = generator.document()
    }
    if dumpInputs { dumpLine("format \(format): \(JSONWriter.string(document))") }
    check(RuleSetCompiler.compile(document, format: format), document, format)
    return 0
}

func check(_ result: Result<RuleSet, RuleSetError>, _ document: JSONValue, _ format: RuleSetCompiler.Format) {
    switch result {
    case .failure(let error):
        guard !error.errors.isEmpty else { fatalError("compile failed without an error diagnostic") }
        _ = error.description
    case .success(let rules):
        guard rules.flagKeys.count == rules.flags.count, rules.triggerKeys.count == rules.triggers.count else {
            fatalError("keys and tables disagree")
        }
        guard rules.warnings.allSatisfy({ $0.severity != .error }) else { fatalError("a set compiled with an error") }
        // Compiling is a function of the document: again, the same set with the same content-hash version.
        guard case .success(let again) = RuleSetCompiler.compile(document, format: format), again.version == rules.version,
            again.flagKeys == rules.flagKeys
        else {
            fatalError("compiling the same document twice disagrees")
        }
    }
}
