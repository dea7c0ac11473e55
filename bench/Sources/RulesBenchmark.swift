import Foundation
import Rules

/// Evaluations per second for a static flag, the 5-leaf promo-banner spec and a 10-case decision.
enum RulesBenchmark {
    static func run() {
        print("rules: single-threaded evaluation (best of 5 rounds)")
        let set = try! RuleSetLoader.load(text: DefaultRules.json).get()
        let tenCases = (0..<9).map { #"{"when": {"counter": {"key": "c\#($0)", "gte": 5}}, "value": \#($0)}"# }.joined(separator: ",")
        let decisionSet = try! RuleSetLoader.load(
            text: #"""
                {"flags": {"static": {"variants": {"on": true}, "defaultVariant": "on"},
                           "decision": {"cases": [\#(tenCases), {"when": {"segment": "vip"}, "value": 99}], "fallback": -1}}}
                """#
        ).get()
        let now = ISO8601.parse("2026-03-10T12:00:00Z")!
        var context = UserContext()
        context.launchedAt = now - 86_400_000
        context.counters = ["promo_banner_count": 1, "c3": 1, "c8": 2, "screen_views": 4, "purchases": 2]
        context.events = ["last_promo_banner": now - 4 * 86_400_000]
        context.flags = ["promo": false]
        context.segments = ["vip"]
        let input = EvaluationInput(context: context, now: now, request: RequestAttributes(userID: "user-42", appVersion: "2.1"))
        // `SPECD_BENCH_ITERATIONS` shrinks it, for counting instructions under callgrind.
        let iterations = Int(ProcessInfo.processInfo.environment["SPECD_BENCH_ITERATIONS"] ?? "") ?? 2_000_000
        precondition(set.evaluate("promo-banner", input).value == true)
        precondition(decisionSet.evaluate("decision", input).index == 9)
        let staticFlag = decisionSet.flags["static"]!
        let promo = set.flags["promo-banner"]!
        let decision = decisionSet.flags["decision"]!
        Measure.run("static flag (Flag.evaluate)", operations: iterations) {
            var matched = 0
            for _ in 0..<iterations where staticFlag.evaluate(input).matched { matched += 1 }
            return matched
        }
        Measure.run("promo-banner, 5 leaves (Flag.evaluate)", operations: iterations) {
            var matched = 0
            for _ in 0..<iterations where promo.evaluate(input).matched { matched += 1 }
            return matched
        }
        guard case .boolean(let promoSpec) = promo.body else { return }
        Measure.run("promo-banner spec only (Spec.holds)", operations: iterations) {
            var matched = 0
            for _ in 0..<iterations where promoSpec.holds(input) { matched += 1 }
            return matched
        }
        Measure.run("10-case decision, 10th case wins", operations: iterations / 4) {
            var total = 0
            for _ in 0..<(iterations / 4) { total &+= decision.evaluate(input).index ?? 0 }
            return total
        }
        Measure.run("promo-banner by key (RuleSet.evaluate)", operations: iterations) {
            var matched = 0
            for _ in 0..<iterations where set.evaluate("promo-banner", input).matched { matched += 1 }
            return matched
        }
        Measure.run("all 11 example flags (evaluateAll)", operations: iterations / 20) {
            var total = 0
            for _ in 0..<(iterations / 20) { total &+= set.evaluateAll(input).count }
            return total
        }
        Measure.run("promo-banner next change instant", operations: iterations / 4) {
            var total = 0
            for _ in 0..<(iterations / 4) { total &+= Int(promo.nextChange(input)?.milliseconds ?? 0) }
            return total
        }
        runNodes(iterations: iterations / 4)
        DisplayBenchmark.run(iterations: iterations)
    }
}
