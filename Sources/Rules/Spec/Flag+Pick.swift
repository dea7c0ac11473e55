extension Flag {
    /// A weighted pick's answer: the drawn case (reason `SPLIT`, its index), else the fallback (`DEFAULT`, index
    /// `cases.count`), else no match.
    func evaluatePick(_ pick: WeightedPick, _ input: EvaluationInput) -> Evaluation {
        guard enabled else {
            let decided = pick.fallback.map { resolve($0, input) }
            return Evaluation(key: key, value: decided?.value, variant: decided?.variant, reason: .disabled, matched: false)
        }
        if let index = pick.choose(input) {
            let chosen = pick.cases[index]
            return Evaluation(key: key, value: chosen.value, variant: chosen.variant, reason: .split, index: index, matched: true)
        }
        guard let fallback = pick.fallback else {
            return Evaluation(key: key, value: nil, reason: .defaultValue, matched: false)
        }
        let decided = resolve(fallback, input)
        return Evaluation(
            key: key, value: decided.value, variant: decided.variant, reason: decided.isSplit ? .split : .defaultValue,
            index: pick.cases.count, matched: true)
    }

    /// Every case with its result, and the one drawn.
    func explainPick(_ pick: WeightedPick, _ input: EvaluationInput) -> JSONValue {
        let explained = pick.cases.enumerated().map { index, candidate -> JSONValue in
            ["index": .int(index), "weight": .int(candidate.weight), "when": candidate.when.explain(input).json]
        }
        return [
            "pick": "weighted", "cases": .array(explained), "chosen": pick.choose(input).map { .int($0) } ?? .null,
            "hasFallback": .bool(pick.fallback != nil)
        ]
    }
}
