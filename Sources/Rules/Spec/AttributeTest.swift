/// The typed tests of `{"attr": {"key": k, OP: V}}`. A type mismatch does not hold; nothing here throws.
public enum AttributeTest: Sendable, Equatable {
    public enum OrderOperator: String, Sendable, CaseIterable {
        case lt, lte, gt, gte
    }

    case exists(Bool)
    case equals(JSONValue, negated: Bool)
    case order(OrderOperator, JSONValue)
    case oneOf([JSONValue], negated: Bool)
    case contains(JSONValue)
    case startsWith(String)
    case endsWith(String)
    case matches(Pattern)
    case semver(VersionTest.Operator, Version)

    /// Every operator name the `attr` node accepts.
    public static let operatorNames: [String] = [
        "exists", "eq", "ne", "lt", "lte", "gt", "gte", "in", "notIn", "contains",
        "startsWith", "endsWith", "matches", "semverEq", "semverNe", "semverLt", "semverLte", "semverGt", "semverGte"
    ]

    public func holds(_ value: JSONValue?) -> Bool {
        if case .exists(let expected) = self { return (value != nil) == expected }
        guard let value else { return false }
        switch self {
        case .exists:
            return false
        case .equals(let expected, let negated):
            guard sameType(value, expected) else { return false }
            return (value == expected) != negated
        case .order(let op, let expected):
            guard let order = compare(value, expected) else { return false }
            switch op {
            case .lt: return order < 0
            case .lte: return order <= 0
            case .gt: return order > 0
            case .gte: return order >= 0
            }
        case .oneOf(let candidates, let negated):
            return candidates.contains(value) != negated
        case .contains(let needle):
            if case .string(let text) = value, case .string(let part) = needle { return text.contains(part) }
            if case .array(let items) = value { return items.contains(needle) }
            return false
        case .startsWith(let prefix):
            return value.stringValue?.hasPrefix(prefix) ?? false
        case .endsWith(let suffix):
            return value.stringValue?.hasSuffix(suffix) ?? false
        case .matches(let pattern):
            return value.stringValue.map(pattern.matches) ?? false
        case .semver(let op, let expected):
            guard let text = value.stringValue, let version = Version(text) else { return false }
            return VersionTest(op, .literal(expected)).holds(version, expected)
        }
    }

    private func sameType(_ a: JSONValue, _ b: JSONValue) -> Bool { a.typeName == b.typeName }

    /// Numbers compare numerically, strings by code points; anything else has no order.
    private func compare(_ a: JSONValue, _ b: JSONValue) -> Int? {
        switch (a, b) {
        case (.number(let x), .number(let y)): return x.double < y.double ? -1 : (x.double > y.double ? 1 : 0)
        case (.string(let x), .string(let y)): return x < y ? -1 : (x > y ? 1 : 0)
        default: return nil
        }
    }
}
