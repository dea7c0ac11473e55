/// `{"pick": "weighted", "cases": [{"when": s, "weight": 3, "value": V}, ...], "fallback": F}`: a decision that draws
/// among the cases whose `when` holds instead of taking the first (docs/rules.md, "Weighted pick"; SpecificationKit's
/// WeightedSpec, made deterministic per user). The draw is the split's bucketing over the holding cases' weights,
/// in declaration order, with the bucketing string `<flag>/pick/<flag>/<userId>`: its own salt suffix `/pick`, so it
/// is independent of rollouts and splits of the same flag.
public struct WeightedPick: Sendable, Equatable {
    public struct Case: Sendable, Equatable {
        public let when: Spec
        /// At least 1.
        public let weight: Int
        public let value: JSONValue
        public let variant: String?
    }

    public let cases: [Case]
    public let fallback: Flag.Outcome?
    /// `<flag>/pick/<flag>/`, followed by the user id.
    public let prefix: String

    public init(cases: [Case], fallback: Flag.Outcome?, prefix: String) {
        self.cases = cases
        self.fallback = fallback
        self.prefix = prefix
    }

    /// The index of the chosen case, or `nil` when no case holds.
    public func choose(_ input: EvaluationInput) -> Int? {
        var eligible: [Int] = []
        for index in cases.indices where cases[index].when.holds(input) { eligible.append(index) }
        guard !eligible.isEmpty else { return nil }
        let drawn = Bucketing.pick(prefix + input.request.userID, weights: eligible.map { cases[$0].weight })
        return eligible[drawn]
    }

    /// Every case is consulted, so any case's change can change the draw: the earliest of them (conservative).
    func nextChange(_ input: EvaluationInput) -> Instant? {
        cases.reduce(nil) { Spec.earlier($0, $1.when.nextChange(input)) }
    }

    var inputs: Set<ContextInput> { cases.reduce(into: []) { $0.formUnion($1.when.inputs) } }
}
