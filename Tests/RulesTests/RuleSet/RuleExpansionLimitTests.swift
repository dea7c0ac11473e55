import Rules
import Testing

/// References and prerequisites are inlined wherever they are used, so a rule file where each level refers twice to
/// the one below grows twice per level. Forty levels hung validation (and would hang a reload); past
/// `too_complex`'s limit the flag is refused, and compiling stops there.
@Suite struct RuleExpansionLimitTests {
    static func prerequisiteLadder(_ levels: Int) -> String {
        var flags = [#""f0": {"when": {"always": true}}"#, #""f1": {"when": {"always": false}}"#]
        for level in 2..<levels {
            flags.append(
                #""f\#(level)": {"when": {"any": [{"prerequisite": {"flag": "f\#(level - 1)", "equals": true}}, "#
                    + #"{"prerequisite": {"flag": "f\#(level - 2)", "equals": true}}]}}"#)
        }
        return #"{"flags": {\#(flags.joined(separator: ", "))}}"#
    }

    static func refLadder(_ levels: Int) -> String {
        var specs = [#""s0": {"always": true}"#, #""s1": {"always": false}"#]
        for level in 2..<levels {
            specs.append(#""s\#(level)": {"any": [{"ref": "s\#(level - 1)"}, {"ref": "s\#(level - 2)"}]}"#)
        }
        return #"{"specs": {\#(specs.joined(separator: ", "))}, "flags": {"f": {"when": {"ref": "s\#(levels - 1)"}}}}"#
    }

    @Test(arguments: [60, 200])
    func prerequisiteLadder_pastTheLimit_isRefusedAsTooComplex(levels: Int) {
        guard case .failure(let error) = RuleSetLoader.load(text: Self.prerequisiteLadder(levels)) else {
            Issue.record("a \(levels)-level ladder loaded")
            return
        }
        #expect(error.diagnostics.contains { $0.code == "too_complex" && $0.path.hasPrefix("/flags/f") })
    }

    @Test(arguments: [60, 200])
    func refLadder_pastTheLimit_isRefusedAsTooComplex(levels: Int) {
        guard case .failure(let error) = RuleSetLoader.load(text: Self.refLadder(levels)) else {
            Issue.record("a \(levels)-level ladder loaded")
            return
        }
        #expect(error.diagnostics.contains { $0.code == "too_complex" && $0.path.hasPrefix("/specs/s") })
    }

    /// flagd evaluators where each is `fanOut` `$ref`s to the next: `levels` of them copy fanOut^levels nodes into
    /// the targeting.
    static func evaluatorFan(fanOut: Int, levels: Int) -> String {
        var evaluators: [String] = []
        for level in 0..<levels {
            let refs = Array(repeating: #"{"$ref": "e\#(level + 1)"}"#, count: fanOut).joined(separator: ", ")
            evaluators.append(#""e\#(level)": {"or": [\#(refs)]}"#)
        }
        evaluators.append(#""e\#(levels)": {"==": [1, 1]}"#)
        return #"{"$evaluators": {\#(evaluators.joined(separator: ", "))}, "flags": {"f": {"state": "ENABLED", "#
            + #""variants": {"on": true, "off": false}, "defaultVariant": "off", "targeting": {"if": [{"$ref": "e0"}, "on", "off"]}}}}"#
    }

    /// Twelve levels of ten `$ref`s (2.2 KB) expanded to 10^12 nodes: validation grew past 3 GB and the same body
    /// on `POST /v1/rules/validate` aborted the daemon. It is refused, and refusing it stops early.
    @Test func flagdEvaluatorFanOut_pastTheLimit_isRefusedAsTooComplex() {
        let clock = ContinuousClock()
        let started = clock.now
        guard case .failure(let error) = RuleSetLoader.load(text: Self.evaluatorFan(fanOut: 10, levels: 12)) else {
            Issue.record("a 10^12-node targeting loaded")
            return
        }
        #expect(error.diagnostics.contains { $0.code == "too_complex" && $0.path == "/flags/f/targeting" })
        #expect(clock.now - started < .seconds(30))
    }

    /// At 10^4 nodes the same shape loads and answers; a long literal targeting (an allow-list) is not counted.
    @Test func flagdEvaluatorFanOut_belowTheLimit_loadsAndAnswers() throws {
        let input = EvaluationInput(context: UserContext(), now: Instant(milliseconds: 0), request: RequestAttributes(userID: "u"))
        let fan = try RuleSetLoader.load(text: Self.evaluatorFan(fanOut: 10, levels: 4)).get()
        #expect(fan.evaluate("f", input).value == true)
        let names = (0..<150_000).map { #""u\#($0)""# }.joined(separator: ",")
        let allowList = try RuleSetLoader.load(
            text: #"{"flags": {"f": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off", "#
                + #""targeting": {"if": [{"in": [{"var": "targetingKey"}, [\#(names)]]}, "on", "off"]}}}}"#
        ).get()
        #expect(allowList.evaluate("f", input).value == false)
        #expect(
            allowList.evaluate(
                "f", EvaluationInput(context: UserContext(), now: Instant(milliseconds: 0), request: RequestAttributes(userID: "u149999"))
            ).value == true)
    }

    /// Below the limit the same shapes load and answer: the limit counts nodes, not levels.
    @Test func ladders_belowTheLimit_loadAndAnswer() throws {
        let prerequisites = try RuleSetLoader.load(text: Self.prerequisiteLadder(12)).get()
        #expect(
            prerequisites.evaluate(
                "f11", EvaluationInput(context: UserContext(), now: Instant(milliseconds: 0), request: RequestAttributes(userID: "u"))
            ).value == true)
        let refs = try RuleSetLoader.load(text: Self.refLadder(12)).get()
        #expect(
            refs.evaluate("f", EvaluationInput(context: UserContext(), now: Instant(milliseconds: 0), request: RequestAttributes(userID: "u"))).value
                == true)
    }

    static func refChain(_ levels: Int) -> String {
        var specs = [#""s0": {"segment": "x"}"#]
        for level in 1..<levels { specs.append(#""s\#(level)": {"not": {"ref": "s\#(level - 1)"}}"#) }
        return #"{"specs": {\#(specs.joined(separator: ", "))}, "flags": {"f": {"when": {"ref": "s\#(levels - 1)"}}}}"#
    }

    static func prerequisiteChain(_ levels: Int) -> String {
        var flags = [#""f0": {"when": {"segment": "x"}}"#]
        for level in 1..<levels {
            flags.append(#""f\#(level)": {"when": {"prerequisite": {"flag": "f\#(level - 1)", "equals": false}}}"#)
        }
        return #"{"flags": {\#(flags.joined(separator: ", "))}}"#
    }

    /// Every walk over a compiled flag recurses as deep as it nests, on a loop thread's stack: a chain of thousands
    /// of links validated (slowly) and then recursed that deep on every evaluation.
    @Test(arguments: [(false, 300), (true, 300), (false, 4000), (true, 4000)])
    func chain_pastTheDepthLimit_isRefusedAsTooDeep(prerequisites: Bool, levels: Int) {
        let text = prerequisites ? Self.prerequisiteChain(levels) : Self.refChain(levels)
        guard case .failure(let error) = RuleSetLoader.load(text: text) else {
            Issue.record("a \(levels)-link chain loaded")
            return
        }
        #expect(error.diagnostics.contains { $0.code == "too_deep" })
    }

    @Test func chains_withinTheDepthLimit_loadAndAnswer() throws {
        let input = EvaluationInput(context: UserContext(), now: Instant(milliseconds: 0), request: RequestAttributes(userID: "u"))
        let refs = try RuleSetLoader.load(text: Self.refChain(90)).get()
        // 89 `not`s over a segment the user is not in.
        #expect(refs.evaluate("f", input).value == true)
        let prerequisites = try RuleSetLoader.load(text: Self.prerequisiteChain(150)).get()
        // Each link holds when the one before does not: f149 is the opposite of f0's false, 149 times over.
        #expect(prerequisites.evaluate("f149", input).value == true)
    }
}
