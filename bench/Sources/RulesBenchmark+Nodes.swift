import Rules

/// One boolean flag per richer node (and a weighted pick), each evaluated against a user it reads, beside a plain
/// counter flag as the yardstick: the cost of each node is its ratio to that one.
extension RulesBenchmark {
    static func runNodes(iterations: Int) {
        print("rules: one flag per node")
        let set = try! RuleSetLoader.load(
            text: #"""
                {"flags": {
                  "plain": {"when": {"counter": {"key": "nudges", "gte": 1}}},
                  "backoff": {"when": {"cooldown": {"event": "last_nudge", "for": "1h", "backoff": {"counter": "nudges", "factor": 2, "max": "30d"}}}},
                  "day-night": {"when": {"cooldown": {"event": "last_nudge", "day": "1h", "night": "8h", "nightHours": [22, 7]}}},
                  "since-launch": {"when": {"sinceLaunch": {"lt": "7d"}}},
                  "between": {"when": {"attr": {"key": "score", "between": [10, 20]}}},
                  "reference": {"when": {"counter": {"key": "nudges", "lt": {"$attr": "score"}}}},
                  "history": {"when": {"history": {"event": "appStarted", "over": "30d", "per": "day", "stat": "median", "gte": 1}}},
                  "window": {"when": {"donations": {"event": "appStarted", "gte": 3, "within": "7d"}}},
                  "pick": {"pick": "weighted", "cases": [{"when": {"segment": "vip"}, "weight": 1, "value": "a"},
                                                         {"when": {"always": true}, "weight": 3, "value": "b"}], "fallback": "c"}
                }}
                """#
        ).get()
        let now = ISO8601.parse("2026-03-10T12:00:00Z")!
        var context = UserContext()
        context.launchedAt = now - 86_400_000
        context.timeZone = "Europe/Paris"
        context.counters = ["nudges": 3]
        context.events = ["last_nudge": now - 3_600_000]
        context.attributes = ["score": .int(15)]
        context.segments = ["vip"]
        let days: [Int64] = [0, 1, 1, 2, 5, 8, 13, 21, 29]
        context.donations = ["appStarted": DonationSummary(count: days.count, recent: days.reversed().map { now - $0 * 86_400_000 })]
        let input = EvaluationInput(context: context, now: now, request: RequestAttributes(userID: "user-42", appVersion: "2.1"))
        func measure(_ key: String, _ label: String, _ input: EvaluationInput) {
            let flag = set.flags[key]!
            let count = key == "history" ? iterations / 10 : iterations
            Measure.run("\(label) (Flag.evaluate)", operations: count) {
                var matched = 0
                for _ in 0..<count where flag.evaluate(input).matched { matched += 1 }
                return matched
            }
        }
        for key in set.flagKeys { measure(key, key, input) }
        // A user at the history policy's bound: a thousand donations over ninety days. Windows read a week of it.
        var heavy = context
        let spacing: Int64 = 90 * 86_400_000 / 1_000
        heavy.donations = [
            "appStarted": DonationSummary(count: 1_000, recent: (0..<Int64(1_000)).reversed().map { now - $0 * spacing })
        ]
        let heavyInput = EvaluationInput(context: heavy, now: now, request: RequestAttributes(userID: "user-42", appVersion: "2.1"))
        for key in ["history", "window"] { measure(key, "\(key), 1 000 donations", heavyInput) }
    }
}
