/// A compiled, validated condition (DESIGN §3.2). References are resolved and rollouts know their flag, so
/// evaluation is a walk with no lookups in the rule set.
public indirect enum Spec: Sendable, Equatable {
    case all([Spec])
    case any([Spec])
    case none([Spec])
    case not(Spec)
    case atLeast(Int, [Spec])
    case ref(String, Spec)
    case always(Bool)
    case flag(key: String, equals: Bool, ifMissing: Bool)
    case counter(key: String, Comparison)
    case maxCount(counter: String, limit: Int)
    /// `timeSince` and `cooldown`: the event is at least `duration` old, or never happened.
    case elapsedSince(operator: String, event: String, duration: Milliseconds)
    case sinceLaunch(Milliseconds)
    case eventExists(String)
    case eventDate(event: String, before: Instant?, after: Instant?)
    case dateRange(from: Instant?, to: Instant?)
    case hourIn(from: Int, to: Int, timeZone: String?)
    case weekday(Set<Int>, timeZone: String?)
    case segment(String)
    case segmentsAny([String])
    case segmentsAll([String])
    case subscription(String)
    case attribute(key: String, AttributeTest)
    case donations(event: String, Comparison, within: Milliseconds?)
    case lastDonation(event: String, within: Milliseconds, inside: Bool)
    case donationVersion(event: String, first: Bool, VersionTest)
    case appVersion(VersionTest)
    case rollout(basisPoints: Int, prefix: String, by: String?)
}

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
