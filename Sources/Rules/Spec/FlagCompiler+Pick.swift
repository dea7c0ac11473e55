extension FlagCompiler {
    /// `{"pick": "weighted", "cases": [{"when", "weight", "value" | "variant"}...], "fallback" | "defaultVariant"}`.
    /// The cases, values, variants and fallback are checked by the decision compiler (same paths, same codes); the
    /// weights here. No case is unreachable in a pick, so that warning is dropped.
    mutating func compilePick(_ fields: JSONObject) -> Flag.Body? {
        var ok = true
        if fields["pick"] != .string("weighted") {
            specs.error(path.appending("pick"), "invalid_pick", #"pick is "weighted""#)
            ok = false
        }
        guard case .array(let items)? = fields["cases"], !items.isEmpty else {
            specs.error(path.appending("cases"), fields["cases"] == nil ? "missing_field" : "empty_combinator", "a pick needs cases")
            return nil
        }
        var weights: [Int] = []
        var stripped: [JSONValue] = []
        for (index, item) in items.enumerated() {
            let at = path.appending("cases").appending(index)
            guard case .object(var object) = item else {
                stripped.append(item)
                continue
            }
            if object["split"] != nil {
                specs.error(at.appending("split"), "unknown_field", "a pick case has a value or a variant, not a split")
                ok = false
            }
            if let weight = object["weight"]?.numberValue?.int, weight > 0 {
                weights.append(weight)
            } else {
                specs.error(at.appending("weight"), "non_positive_weight", "pick weights are positive integers")
                ok = false
            }
            object["weight"] = nil
            stripped.append(.object(object))
        }
        var total = 0
        for weight in weights {
            let (sum, overflow) = total.addingReportingOverflow(weight)
            if overflow {
                specs.error(path.appending("cases"), "weight_overflow", "pick weights must sum to at most \(Int.max)")
                ok = false
                break
            }
            total = sum
        }
        var rewritten = fields
        rewritten["cases"] = .array(stripped)
        rewritten["pick"] = nil
        let before = specs.diagnostics.count
        let body = compileCases(rewritten)
        let casesPath = path.appending("cases").text + "/"
        specs.dropDiagnostics(after: before) { $0.code == "unreachable_case" && $0.path.hasPrefix(casesPath) }
        guard ok, case .cases(let cases, let fallback)? = body, cases.count == weights.count else { return nil }
        var picked: [WeightedPick.Case] = []
        for (index, candidate) in cases.enumerated() {
            guard case .value(let value, let variant) = candidate.outcome else { return nil }
            picked.append(WeightedPick.Case(when: candidate.when, weight: weights[index], value: value, variant: variant))
        }
        // The salt suffix "/pick" keeps the draw independent of a rollout or split salted with the flag key.
        return .pick(WeightedPick(cases: picked, fallback: fallback, prefix: key + "/pick/" + key + "/"))
    }
}
