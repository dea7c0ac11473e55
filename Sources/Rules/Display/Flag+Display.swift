extension Flag {
    /// The answer of a flag its display gate holds back: `false` / its fallback, with reason `INVALIDATED` for good,
    /// `DEFAULT` while it waits (an earlier member of an ordered group, or another member's frequency window).
    func heldBack(_ gate: DisplayRule.Gate, _ input: EvaluationInput) -> Evaluation {
        let invalidated: Bool
        if case .invalidated = gate { invalidated = true } else { invalidated = false }
        switch body {
        case .cases(let cases, let fallback?):
            let decided = resolve(fallback, input)
            return Evaluation(
                key: key, value: decided.value, variant: decided.variant, reason: invalidated ? .invalidated : .defaultValue,
                index: invalidated ? nil : cases.count, matched: !invalidated)
        case .pick(let pick):
            guard let fallback = pick.fallback else {
                return Evaluation(key: key, value: nil, reason: invalidated ? .invalidated : .defaultValue, matched: false)
            }
            let decided = resolve(fallback, input)
            return Evaluation(
                key: key, value: decided.value, variant: decided.variant, reason: invalidated ? .invalidated : .defaultValue,
                index: invalidated ? nil : pick.cases.count, matched: !invalidated)
        case .cases:
            return Evaluation(key: key, value: nil, reason: invalidated ? .invalidated : .defaultValue, matched: false)
        case .boolean, .flagd:
            return Evaluation(key: key, value: .bool(false), reason: invalidated ? .invalidated : .defaultValue, matched: false)
        }
    }

    /// The next clock-driven change of a display flag: none while it is invalidated or waits for an earlier member;
    /// while another member's window runs, the window's end if the answer differs there, else the rules' next change
    /// from then. An open gate stays open with no write (windows only end), so the rules alone decide.
    func displayNextChange(_ display: DisplayRule, _ input: EvaluationInput) -> Instant? {
        switch display.gate(key, input.context, now: input.now) {
        case .open:
            return bodyNextChange(input)
        case .invalidated, .waitingForEarlier:
            return nil
        case .waitingForWindow(_, _, let until):
            var then = input
            then.now = until
            if evaluate(then) != evaluate(input) { return until }
            return bodyNextChange(then)
        }
    }

    /// The `display` member of `?explain=1`: whether the gate lets the flag answer, and why.
    func explainDisplay(_ display: DisplayRule, _ input: EvaluationInput) -> JSONValue {
        let state = input.context.display(forKey: key) ?? DisplayState()
        var facts = "shown \(state.shownCount)" + (display.maxCount.map { " of max \($0)" } ?? "")
        if let last = state.lastShown { facts += ", last at \(last)" }
        let why: String
        let gate = display.gate(key, input.context, now: input.now)
        switch gate {
        case .open:
            why = facts + "; eligible"
        case .invalidated(let reason):
            why = facts + "; invalidated (\(reason.rawValue))" + (state.invalidated.map { " at \($0.at)" } ?? "")
        case .waitingForEarlier(let group, let member):
            why = facts + "; group '\(group)' is ordered: waits until '\(member)' is invalidated"
        case .waitingForWindow(let group, let member, let until):
            let remaining = Saturating.add(until - input.now, 999) / 1000
            why = facts + "; group '\(group)': '\(member)' was shown last; eligible at \(until), remaining: \(remaining)s"
        }
        return ExplainNode(node: "display", result: gate == .open, why: why, children: []).json
    }
}
