/// What is left of the flag evaluations a scenario run's due instants may take (`ScenarioRunner.maxEvaluationsPerRun`).
/// A class: the runner is a value whose steps run through non-mutating methods. Owned by one run, on its one thread.
final class InstantBudget {
    let total: Int
    private var remaining: Int

    init(_ total: Int) {
        self.total = total
        remaining = total
    }

    /// `false`, spending nothing, when `cost` is more than is left.
    func spend(_ cost: Int) -> Bool {
        guard cost <= remaining else { return false }
        remaining -= cost
        return true
    }
}
