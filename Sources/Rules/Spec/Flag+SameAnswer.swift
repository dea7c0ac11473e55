extension Flag {
    /// Whether the flag certainly answers two inputs of one request (one user, one app version, one instant) with
    /// the same value and variant, found without building either answer. Every write diffs its affected flags
    /// between the state before and after it, and nearly always nothing moved: two full `Evaluation`s built,
    /// compared and freed per flag were the largest part of a donation's diff.
    ///
    /// - A boolean flag answers its spec's truth.
    /// - A decision answers what its deciding case (or the fallback, or none) yields; that outcome's value and
    ///   variant depend on nothing but the case and the request's user (a split draws by user), so the same
    ///   deciding case is the same answer.
    /// - A disabled boolean flag or decision answers a constant.
    ///
    /// `false` means "not known here": display flags (their gate reads the context), picks, flagd definitions, and
    /// decisions whose deciding case moved (two cases may yield one value) are evaluated in full by the caller.
    public func answersAlike(_ old: EvaluationInput, _ new: EvaluationInput) -> Bool {
        switch body {
        case .boolean(let spec):
            guard enabled else { return true }
            guard display == nil else { return false }
            return spec.holds(old) == spec.holds(new)
        case .cases(let cases, _):
            guard enabled else { return true }
            guard display == nil else { return false }
            return Self.decidingCase(cases, old) == Self.decidingCase(cases, new)
        case .flagd, .pick:
            return false
        }
    }

    /// The index of the first case that holds; `cases.count` when none does (the fallback, or no answer).
    /// Each case is asked where it lies (`Case.holdsInPlace`).
    static func decidingCase(_ cases: [Case], _ input: EvaluationInput) -> Int {
        cases.withUnsafeBufferPointer { buffer in
            guard let first = buffer.baseAddress else { return 0 }
            let cases = UnsafeMutablePointer(mutating: first)
            for index in 0..<buffer.count where cases[index].holdsInPlace(input) { return index }
            return buffer.count
        }
    }
}

extension Flag.Case {
    /// `when.holds`, asked of a case through its address: an exclusive access that writes nothing (a rule set is
    /// read by every thread at once), where reading `when` out of the array retained and released it.
    mutating func holdsInPlace(_ input: EvaluationInput) -> Bool { when.holds(input) }
}
