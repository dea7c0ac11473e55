// libFuzzer target: evaluation. Random valid rule sets (every spec node, flagd flags whose JSON Logic targeting is
// built from the input) against random contexts (extreme numbers, number-like strings, long strings, deep
// nesting) at random instants: evaluate, explain, next-change and trigger checks must answer, never trap.
//
// Input: a rule document built by RuleGenerator (entries the compiler refuses are dropped until the rest compiles),
// then a context, a request and up to three instants. An input starting with `{` is a rule file instead, evaluated
// against a fixed context that has every kind of data (readable reproducers: Crashes/evaluation/*.json).

/// Compiles the document, dropping the flags, specs and triggers the compiler names in errors (at most 4 rounds).
func compileValid(_ document: JSONValue) -> RuleSet? {
    var document = document
    for _ in 0..<4 {
        switch RuleSetCompiler.compile(document) {
        case .success(let rules): return rules
        case .failure(let error):
            guard case .object(var root) = document else { return nil }
            for diagnostic in error.errors {
                let parts = diagnostic.path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
                guard parts.count >= 3, case .object(var section)? = root[parts[1]] else {
                    if parts.count >= 2 { root[parts[1]] = nil }
                    continue
                }
                let key = parts[2].replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
                section[key] = nil
                root[parts[1]] = .object(section)
            }
            document = .object(root)
        }
    }
    return nil
}

/// The context a rule file is evaluated against: a counter, an event, a flag, attributes, a segment, donations
/// and a trigger fire, all around 2026-01-01.
func fixedContext() -> UserContext {
    let at = Instant(milliseconds: 1_767_225_600_000)
    var context = UserContext()
    context.launchedAt = at
    context.timeZone = "Europe/Paris"
    context.counters["views"] = 3
    context.flags["beta"] = true
    context.segments.insert("vip")
    context.attributes["email"] = .string("user@example.com")
    context.attributes["score"] = .int(42)
    for event in RuleGenerator.events {
        context.events[event] = at
        context.donations[event] = DonationSummary(
            count: 2, first: .init(at: at - 86_400_000, appVersion: "1.2"),
            last: .init(at: at, appVersion: "2.0"), recent: [at - 86_400_000, at])
    }
    for trigger in ["t", "t0", "t1"] { context.triggerFires[trigger] = at }
    return context
}

func fuzzEvaluation(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input: FuzzInput
    let rules: RuleSet
    let context: UserContext
    let isRuleFile = size > 0 && data[0] == UInt8(ascii: "{")
    if isRuleFile {
        input = FuzzInput([])
        guard case .success(let document) = RuleSetLoader.parse(Array(UnsafeBufferPointer(start: data, count: size)), file: "fuzz"),
            let compiled = compileValid(document)
        else { return 0 }
        rules = compiled
        context = fixedContext()
    } else {
        var generator = RuleGenerator(FuzzInput(data, size), chaos: false)
        let document = generator.document()
        input = generator.input
        guard let compiled = compileValid(document) else { return 0 }
        rules = compiled
        context = input.userContext()
    }
    if dumpInputs { dumpLine("rules: \(JSONWriter.string(rules.source))\ncontext: \(JSONWriter.string(ContextJSON.encode(user: "u", context)))") }
    let request = RequestAttributes(
        userID: input.bool() ? input.key() : String(repeating: "u", count: input.int(0...300)),
        appVersion: input.bool() ? input.pick(["1.2", "2.10.0", "v3", "", "99999999999999999999"]) : nil)
    for round in 0..<(isRuleFile ? 2 : input.int(1...3)) {
        // A rule file is evaluated a minute and a year after the fixed context's instants.
        let now = isRuleFile ? Instant(milliseconds: 1_767_225_660_000 + Int64(round) * 31_536_000_000) : input.instant()
        let evaluation = EvaluationInput(context: context, now: now, request: request)
        let all = rules.evaluateAll(evaluation)
        guard all.count == rules.flagKeys.count else { fatalError("evaluateAll skipped flags") }
        for (key, answer) in zip(rules.flagKeys, all) {
            guard answer.key == key else { fatalError("answers out of order") }
            guard rules.evaluate(key, evaluation) == answer else { fatalError("evaluating \(key) twice disagrees") }
            if let value = answer.value { _ = JSONWriter.write(value) }
            let flag = rules.flags[key]!
            _ = JSONWriter.write(flag.explain(evaluation))
            if let next = rules.nextChange(key, evaluation), next <= now {
                fatalError("next change \(next) of \(key) is not after now \(now)")
            }
        }
        for key in rules.triggerKeys {
            let trigger = rules.triggers[key]!
            _ = trigger.shouldFire(previous: input.bool() ? context : nil, current: context, now: now, request: request)
            _ = trigger.when.explain(evaluation)
        }
        let event = input.pick(RuleGenerator.events)
        // The event index against the scan it replaced: the same triggers, in declaration order.
        let scanned = rules.triggerKeys.filter { rules.triggers[$0]!.listens(to: event) }
        guard rules.listeners(of: event).map(\.key) == scanned else { fatalError("listeners of \(event) disagree with the scan") }
        _ = rules.immediateFires(event: event, previous: nil, current: context, now: now, request: request)
    }
    return 0
}
