extension Flag {
    /// How long `evaluation` (this flag's answer to `input`) holds with no write: the same instant as
    /// `nextChange(input)`, the one that drives clock pushes (docs/api.md, "validUntil"), computed without walking
    /// again what the evaluation already decided. A decision consults its cases up to the one that matched, and
    /// the answer names that case (`index`), so no case's `holds` runs twice.
    ///
    /// Conservative like `nextChange`: never later than the first instant the answer really changes; exact for a
    /// clock-dependent leaf, earlier than the change when a combinator's child flips without flipping it.
    public func validUntil(_ input: EvaluationInput, answered evaluation: Evaluation) -> Instant? {
        guard enabled, display == nil, case .cases(let cases, _) = body else { return nextChange(input) }
        // `index` is the matched case, `cases.count` for the fallback, nil when nothing matched and there is no
        // fallback: the last two consulted every case.
        let consulted = min(evaluation.index ?? cases.count, cases.count - 1)
        guard consulted >= 0 else { return nil }
        var earliest: Instant?
        for index in 0...consulted { earliest = Spec.earlier(earliest, cases[index].when.nextChange(input)) }
        return earliest
    }
}
