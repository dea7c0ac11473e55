/// A version comparison whose right side is a literal or the request's `$appVersion`.
public struct VersionTest: Sendable, Equatable {
    public enum Operator: String, Sendable, CaseIterable {
        case eq, ne, lt, lte, gt, gte
    }

    public enum Operand: Sendable, Equatable {
        case literal(Version)
        case requestAppVersion
    }

    public let op: Operator
    public let operand: Operand

    public init(_ op: Operator, _ operand: Operand) {
        self.op = op
        self.operand = operand
    }

    public func holds(_ left: Version, _ right: Version) -> Bool {
        switch op {
        case .eq: return left == right
        case .ne: return left != right
        case .lt: return left < right
        case .lte: return left <= right
        case .gt: return left > right
        case .gte: return left >= right
        }
    }
}
