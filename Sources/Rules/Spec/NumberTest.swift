/// `attr` tests on numbers only (docs/rules.md, "attr"): `between: [a, b]` (inclusive) and `eq` with a `tolerance`
/// (`|x − v| <= tolerance`). A missing attribute or one that is not a number does not hold.
public enum NumberTest: Sendable, Equatable {
    case between(JSONNumber, JSONNumber)
    case near(JSONNumber, tolerance: JSONNumber)

    func holds(_ value: JSONValue?) -> Bool {
        guard case .number(let number)? = value else { return false }
        let x = NumberOrder.Value(number)
        switch self {
        case .between(let low, let high):
            guard let above = NumberOrder.compare(x, NumberOrder.Value(low)),
                let below = NumberOrder.compare(x, NumberOrder.Value(high))
            else { return false }
            return above >= 0 && below <= 0
        case .near(let target, let tolerance):
            return NumberOrder.near(x, NumberOrder.Value(target), tolerance: NumberOrder.Value(tolerance))
        }
    }

    var text: String {
        switch self {
        case .between(let low, let high): return "between [\(low), \(high)]"
        case .near(let target, let tolerance): return "eq \(target) ± \(tolerance)"
        }
    }
}
