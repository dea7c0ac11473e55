import Foundation
import Rules

/// A display-group flag against the same flag without `display`: the cost of TipKit's gate (own state, an ordered
/// group's earlier member, the group's and the global group's frequency windows). Target: at most 2×.
enum DisplayBenchmark {
    static func run(iterations: Int) {
        let set = try! RuleSetLoader.load(
            text: #"""
                {"groups": {"onboarding": {"frequency": "daily", "order": "ordered"}, "*": {"frequency": "1h"}},
                 "flags": {
                   "plain": {"when": {"not": {"flag": "tips_disabled"}}},
                   "tip-search": {"when": {"not": {"flag": "tips_disabled"}}, "display": {"maxCount": 2, "group": "onboarding", "invalidateOn": ["actionPerformed"]}},
                   "tip-filters": {"when": {"not": {"flag": "tips_disabled"}}, "display": {"maxCount": 2, "group": "onboarding", "invalidateOn": ["actionPerformed"]}},
                   "tip-share": {"when": {"not": {"flag": "tips_disabled"}}, "display": {"maxCount": 2, "group": "onboarding", "invalidateOn": ["actionPerformed"]}}}}
                """#
        ).get()
        let now = ISO8601.parse("2026-03-10T12:00:00Z")!
        var context = UserContext()
        context.launchedAt = now - 7 * 86_400_000
        context.flags = ["promo": false]
        // The middle tip, eligible: the first was invalidated two days ago, the second shown once yesterday.
        context.display["tip-search"] = DisplayState(
            shownCount: 1, firstShown: now - 2 * 86_400_000, lastShown: now - 2 * 86_400_000,
            invalidated: .init(reason: .actionPerformed, at: now - 2 * 86_400_000))
        context.display["tip-filters"] = DisplayState(shownCount: 1, firstShown: now - 86_400_000, lastShown: now - 86_400_000)
        let input = EvaluationInput(context: context, now: now, request: RequestAttributes(userID: "user-42", appVersion: "2.1"))
        let plain = set.flags["plain"]!
        let tip = set.flags["tip-filters"]!
        precondition(plain.evaluate(input).value == true && tip.evaluate(input).value == true)
        let plainCost = Measure.run("plain boolean flag (Flag.evaluate)", operations: iterations) {
            var matched = 0
            for _ in 0..<iterations where plain.evaluate(input).matched { matched += 1 }
            return matched
        }
        let tipCost = Measure.run("the same flag in an ordered daily group + \"*\"", operations: iterations) {
            var matched = 0
            for _ in 0..<iterations where tip.evaluate(input).matched { matched += 1 }
            return matched
        }
        print(String(format: "  display-group flag / plain boolean flag: %.2f× (target ≤ 2×)", tipCost / plainCost))
    }
}
