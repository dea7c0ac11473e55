/// `{"sinceLaunch": {"gt"/"gte"/"lt"/"lte": "30s"}}`: the time since `launchedAt` against a duration with an explicit
/// comparison (docs/rules.md, "sinceLaunch"). The string form stays `gte`. An unknown `launchedAt` reads as now
/// (elapsed 0), as in the string form.
public struct LaunchAgeTest: Sendable, Equatable {
    public let op: AttributeTest.OrderOperator
    public let duration: Milliseconds

    public init(_ op: AttributeTest.OrderOperator, _ duration: Milliseconds) {
        self.op = op
        self.duration = duration
    }

    func elapsed(_ input: EvaluationInput) -> Milliseconds {
        input.context.launchedAt.map { input.now - $0 } ?? 0
    }

    func holds(_ input: EvaluationInput) -> Bool {
        let elapsed = elapsed(input)
        switch op {
        case .lt: return elapsed < duration
        case .lte: return elapsed <= duration
        case .gt: return elapsed > duration
        case .gte: return elapsed >= duration
        }
    }

    /// `gte` and `lt` flip at `launchedAt + duration`, `gt` and `lte` one millisecond later.
    func nextChange(_ input: EvaluationInput) -> Instant? {
        guard let launched = input.context.launchedAt else { return nil }
        let edge = launched + duration
        let change = op == .gte || op == .lt ? edge : edge + 1
        return change > input.now ? change : nil
    }

    func why(_ input: EvaluationInput) -> String {
        let since = input.context.launchedAt.map { "launched at \($0)" } ?? "launchedAt unknown: treated as now"
        return since + ", elapsed \(elapsed(input) / 1000)s, \(op.rawValue) \(duration / 1000)s"
    }

    var inputs: Set<ContextInput> { [.launchedAt] }
}
