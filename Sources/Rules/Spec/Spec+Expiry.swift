extension Spec {
    /// When a leaf with no clock of its own next changes: at the first pending expiry of a value it reads after
    /// which its answer differs. Exact: each expiry instant is tried in order with the context as it reads then,
    /// and an expiry that changes nothing (an `attr` test that fails on the value and on its absence alike) is
    /// passed over. One emptiness test when the user has no expiring value.
    func expiryChange(_ input: EvaluationInput) -> Instant? {
        guard !input.context.expiries.isEmpty else { return nil }
        let reads = inputs
        let pending = input.context.expiries.pending(after: input.now).filter { reads.contains($0.input) }
        return Spec.firstChange(over: pending, input) { holds($0) }
    }

    /// The first of the (ascending) expiry instants at which `answer` differs from its answer at `input.now`.
    static func firstChange<Answer: Equatable>(
        over pending: [ValueExpiries.Entry], _ input: EvaluationInput, _ answer: (EvaluationInput) -> Answer
    ) -> Instant? {
        guard !pending.isEmpty else { return nil }
        let current = answer(input)
        var tried: Instant?
        for entry in pending where entry.at != tried {
            tried = entry.at
            if answer(EvaluationInput(context: input.context, now: entry.at, request: input.request)) != current { return entry.at }
        }
        return nil
    }
}

extension Flag {
    /// A flagd flag's next change: its JSON Logic may read any attribute, so every pending expiry is tried.
    func expiryChange(_ input: EvaluationInput) -> Instant? {
        guard !input.context.expiries.isEmpty else { return nil }
        return Spec.firstChange(over: input.context.expiries.pending(after: input.now), input) { evaluate($0) }
    }
}
