/// An integer comparison with its operator name kept for explanations.
public struct Comparison: Sendable, Equatable {
    public enum Operator: String, Sendable, CaseIterable {
        case lt, lte, eq, ne, gte, gt, between
    }

    public let op: Operator
    public let value: Int
    /// Upper bound for `between` (inclusive).
    public let upper: Int

    public init(_ op: Operator, _ value: Int, upper: Int = 0) {
        self.op = op
        self.value = value
        self.upper = upper
    }

    public func holds(_ actual: Int) -> Bool {
        switch op {
        case .lt: return actual < value
        case .lte: return actual <= value
        case .eq: return actual == value
        case .ne: return actual != value
        case .gte: return actual >= value
        case .gt: return actual > value
        case .between: return actual >= value && actual <= upper
        }
    }

    public var text: String { op == .between ? "between [\(value), \(upper)]" : "\(op.rawValue) \(value)" }
}
