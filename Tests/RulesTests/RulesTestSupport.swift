import Foundation
import Rules

/// Tuesday 2026-03-10 12:00:00 UTC: the "now" most node tests evaluate at.
let t0 = ISO8601.parse("2026-03-10T12:00:00Z")!

func at(_ text: String) -> Instant { ISO8601.parse(text)! }

func context(_ build: (inout UserContext) -> Void = { _ in }) -> UserContext {
    var context = UserContext()
    context.launchedAt = t0 - 86_400_000
    build(&context)
    return context
}

/// Compiles one spec through a one-flag rule set, as the daemon would.
func compileSpec(_ json: String, flagKey: String = "f") throws -> Spec {
    let document = try JSONParser().parse(#"{"flags": {"\#(flagKey)": {"when": \#(json)}}}"#)
    let ruleSet = try RuleSetCompiler.compile(document).get()
    guard case .boolean(let spec) = ruleSet.flags[flagKey]!.body else { throw RuleSetError([]) }
    return spec
}

func ruleSet(_ json: String) throws -> RuleSet {
    try RuleSetCompiler.compile(JSONParser().parse(json)).get()
}

func diagnostics(_ json: String) throws -> [Diagnostic] {
    switch RuleSetCompiler.compile(try JSONParser().parse(json)) {
    case .success(let set): return set.warnings
    case .failure(let error): return error.diagnostics
    }
}

func input(_ context: UserContext, _ now: Instant = t0, appVersion: String? = nil, user: String = "u1") -> EvaluationInput {
    EvaluationInput(context: context, now: now, request: RequestAttributes(userID: user, appVersion: appVersion))
}

let minute: Int64 = 60_000
let hour: Int64 = 3_600_000
let day: Int64 = 86_400_000

func fixtureURL(_ name: String) -> URL {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures").appendingPathComponent(name)
}
