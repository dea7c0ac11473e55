extension Spec {
    /// Walks the prerequisite's own next changes until the test's answer differs (a decision can change value
    /// without changing the tested one). Bounded: past `limit` steps the last instant is returned, early but safe
    /// (the clock then re-evaluates and asks again).
    static func prerequisiteChange(_ flag: Flag, _ test: PrerequisiteTest, _ input: EvaluationInput, limit: Int = 16) -> Instant? {
        let current = test.holds(flag.evaluate(input))
        var cursor = input
        for _ in 0..<limit {
            guard let next = flag.nextChange(cursor), next > cursor.now else { return nil }
            cursor = EvaluationInput(context: input.context, now: next, request: input.request)
            if test.holds(flag.evaluate(cursor)) != current { return next }
        }
        return cursor.now
    }

    /// The prerequisite's answer in `why`, and its own evaluation tree as the child: the chain of dependent flags
    /// reads top to bottom.
    static func explainPrerequisite(_ flag: Flag, _ test: PrerequisiteTest, _ input: EvaluationInput) -> ExplainNode {
        let evaluation = flag.evaluate(input)
        let holds = test.holds(evaluation)
        guard evaluation.reason != .disabled else {
            return ExplainNode(
                node: "prerequisite", result: holds, why: "flag '\(flag.key)' is disabled: a disabled prerequisite does not hold",
                children: [])
        }
        let answer = evaluation.value.map(JSONWriter.string) ?? "no value"
        let variant = evaluation.variant.map { " (variant '\($0)')" } ?? ""
        let why = "flag '\(flag.key)' answered \(answer)\(variant), \(evaluation.reason.rawValue); expected \(test.text)"
        return ExplainNode(node: "prerequisite", result: holds, why: why, children: flag.explainNodes(input))
    }
}

extension Flag {
    /// The nodes of this flag's evaluation: its spec, or each case consulted up to the one that matched.
    func explainNodes(_ input: EvaluationInput) -> [ExplainNode] {
        switch body {
        case .boolean(let spec):
            return [spec.explain(input)]
        case .cases(let cases, _):
            var nodes: [ExplainNode] = []
            for (index, candidate) in cases.enumerated() {
                let node = candidate.when.explain(input)
                nodes.append(ExplainNode(node: "case", result: node.result, why: "case \(index) of '\(key)'", children: [node]))
                if node.result { break }
            }
            return nodes
        case .pick(let pick):
            // Every case is consulted for a draw: each one's tree, in order.
            return pick.cases.enumerated().map { index, candidate in
                let node = candidate.when.explain(input)
                return ExplainNode(node: "case", result: node.result, why: "case \(index) of '\(key)' (weight \(candidate.weight))", children: [node])
            }
        case .flagd:
            return []
        }
    }
}
