/// A comparison of one context value with another (docs/rules.md, "Comparing two context values"; SpecificationKit's
/// ComparativeSpec): `{"counter": {"key": "a", "gte": {"$counter": "b"}}}`,
/// `{"attr": {"key": "score", "gt": {"$attr": "best"}}}`, optionally `eq` with a `tolerance`.
///
/// A missing counter reads 0 (as everywhere); a missing attribute does not hold. Numbers (counters included)
/// compare exactly; strings compare by code points with the order operators; `eq` / `ne` also compare booleans,
/// arrays and objects. Values of different types do not hold, `ne` included, as in `attr`.
public struct ContextComparison: Sendable, Equatable {
    public enum Operand: Sendable, Equatable {
        case counter(String)
        case attribute(String)

        /// The value as the comparison reads it: numbers apart, so a counter costs no `JSONNumber` (and its text).
        enum Reading {
            case number(NumberOrder.Value)
            case other(JSONValue)
        }

        func read(_ context: UserContext) -> Reading? {
            switch self {
            case .counter(let key): return .number(.integer(context.counter(forKey: key) ?? 0))
            case .attribute(let key):
                guard let value = context.attribute(forKey: key) else { return nil }
                if case .number(let number) = value { return .number(NumberOrder.Value(number)) }
                return .other(value)
            }
        }

        func show(_ context: UserContext) -> String {
            switch self {
            case .counter(let key): return String(context.counter(forKey: key) ?? 0)
            case .attribute(let key): return context.attribute(forKey: key).map(JSONWriter.string) ?? "missing"
            }
        }

        var input: ContextInput {
            switch self {
            case .counter(let key): return .counter(key)
            case .attribute(let key): return .attribute(key)
            }
        }

        var text: String {
            switch self {
            case .counter(let key): return "counter \(key)"
            case .attribute(let key): return "attribute \(key)"
            }
        }
    }

    public enum Operator: String, Sendable, CaseIterable {
        case eq, ne, lt, lte, gt, gte

        /// Whether an ordering (negative: less, 0: equal, positive: greater) satisfies the operator.
        func holds(order: Int) -> Bool {
            switch self {
            case .eq: return order == 0
            case .ne: return order != 0
            case .lt: return order < 0
            case .lte: return order <= 0
            case .gt: return order > 0
            case .gte: return order >= 0
            }
        }
    }

    public let left: Operand
    public let op: Operator
    public let right: Operand
    /// Only with `eq`: numbers within this distance are equal.
    public let tolerance: JSONNumber?

    public init(left: Operand, op: Operator, right: Operand, tolerance: JSONNumber? = nil) {
        self.left = left
        self.op = op
        self.right = right
        self.tolerance = tolerance
    }

    func holds(_ input: EvaluationInput) -> Bool {
        guard let first = left.read(input.context), let second = right.read(input.context) else { return false }
        if case .number(let x) = first, case .number(let y) = second {
            if let tolerance { return NumberOrder.near(x, y, tolerance: NumberOrder.Value(tolerance)) }
            guard let order = NumberOrder.compare(x, y) else { return false }
            return holds(order)
        }
        guard case .other(let a) = first, case .other(let b) = second, tolerance == nil, a.typeName == b.typeName else { return false }
        switch op {
        case .eq: return a == b
        case .ne: return a != b
        case .lt, .lte, .gt, .gte:
            guard case .string(let x) = a, case .string(let y) = b else { return false }
            let order = x.utf8.elementsEqual(y.utf8) ? 0 : (x.utf8.lexicographicallyPrecedes(y.utf8) ? -1 : 1)
            return holds(order)
        }
    }

    private func holds(_ order: Int) -> Bool { op.holds(order: order) }

    func why(_ input: EvaluationInput) -> String {
        func show(_ operand: Operand) -> String { "\(operand.text) = \(operand.show(input.context))" }
        return "\(show(left)) \(op.rawValue)\(tolerance.map { " (± \($0))" } ?? "") \(show(right))"
    }

    var inputs: Set<ContextInput> { [left.input, right.input] }
}

extension ContextComparison.Operand {
    var isCounter: Bool { if case .counter = self { return true } else { return false } }
}
