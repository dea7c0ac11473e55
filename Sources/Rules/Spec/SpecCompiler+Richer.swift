/// The richer leaves (docs/rules.md, "Spec nodes"): backoff and day/night `cooldown`, `sinceLaunch` with an explicit
/// comparison, `attr` `between` / `tolerance`, context values on the right-hand side, and `history`.
extension SpecCompiler {
    /// Most windows a `history` node may span: each evaluation reads every donation against them.
    static let maxHistoryPeriods = 1000

    /// Whether a leaf is written in one of the richer forms, which `compileRicherLeaf` compiles instead of the
    /// original leaf compiler.
    static func isRicherForm(_ name: String, _ value: JSONValue, object: JSONObject) -> Bool {
        switch name {
        case "history": return true
        case "sinceLaunch": return value.objectValue != nil
        case "cooldown":
            guard let fields = value.objectValue else { return false }
            return object["tz"] != nil || ["backoff", "day", "night", "nightHours"].contains { fields[$0] != nil }
        case "attr":
            guard let fields = value.objectValue else { return false }
            return fields["between"] != nil || fields["tolerance"] != nil
                || ContextComparison.Operator.allCases.contains { fields[$0.rawValue].map(isReference) ?? false }
        case "counter":
            guard let fields = value.objectValue else { return false }
            return Comparison.Operator.allCases.contains { fields[$0.rawValue].map(isReference) ?? false }
        default: return false
        }
    }

    static func isReference(_ value: JSONValue) -> Bool {
        guard let object = value.objectValue else { return false }
        return object["$attr"] != nil || object["$counter"] != nil
    }

    mutating func compileRicherLeaf(_ name: String, _ value: JSONValue, object: JSONObject, path: JSONPointer) -> Spec? {
        let at = path.appending(name)
        switch name {
        case "cooldown": return compileRicherCooldown(value, zone: object["tz"], path: path)
        case "sinceLaunch": return compileLaunchAge(value, at: at)
        case "attr": return compileRicherAttribute(value, at: at)
        case "counter": return compileCounterComparison(value, at: at)
        default: return compileHistory(value, at: at)
        }
    }

    /// `{"$attr": "k"}` or `{"$counter": "k"}`.
    mutating func reference(_ value: JSONValue, at path: JSONPointer) -> ContextComparison.Operand? {
        guard case .object(let object) = value, object.count == 1, let kind = object.keys.first,
            case .string(let key)? = object[kind], !key.isEmpty
        else { return wrongType(path, #"{"$attr": "key"} or {"$counter": "key"}"#) }
        switch kind {
        case "$attr": return .attribute(key)
        case "$counter": return .counter(key)
        default: return wrongType(path, #"{"$attr": "key"} or {"$counter": "key"}"#)
        }
    }

    /// Exactly one of `names` present in `fields`.
    mutating func singleOperator(_ fields: JSONObject, _ names: [String], at path: JSONPointer) -> String? {
        let present = names.filter { fields[$0] != nil }
        guard present.count == 1, let op = present.first else {
            error(
                path, present.isEmpty ? "missing_field" : "multiple_operators",
                "exactly one of \(names.joined(separator: ", ")) is required")
            return nil
        }
        return op
    }

    /// A finite JSON number.
    mutating func finiteNumber(_ value: JSONValue, at path: JSONPointer) -> JSONNumber? {
        guard case .number(let number) = value, number.double.isFinite else { return wrongType(path, "a finite number") }
        return number
    }

    private mutating func compileLaunchAge(_ value: JSONValue, at path: JSONPointer) -> Spec? {
        let names = AttributeTest.OrderOperator.allCases.map(\.rawValue)
        guard let fields = fields(value, at: path, required: [], optional: names),
            let name = singleOperator(fields, names, at: path), let op = AttributeTest.OrderOperator(rawValue: name),
            let length = duration(fields[name]!, at: path.appending(name))
        else { return nil }
        return .launchAge(LaunchAgeTest(op, length))
    }

    private mutating func compileCounterComparison(_ value: JSONValue, at path: JSONPointer) -> Spec? {
        let names = Comparison.Operator.allCases.map(\.rawValue)
        guard let fields = fields(value, at: path, required: ["key"], optional: names), let key = string(fields, "key", at: path),
            let name = singleOperator(fields, names, at: path)
        else { return nil }
        guard let op = ContextComparison.Operator(rawValue: name) else {
            return wrongType(path.appending(name), "[low, high] integers: between takes no context values")
        }
        guard let right = reference(fields[name]!, at: path.appending(name)) else { return nil }
        return .comparison(ContextComparison(left: .counter(key), op: op, right: right))
    }

    private mutating func compileRicherAttribute(_ value: JSONValue, at path: JSONPointer) -> Spec? {
        let names = AttributeTest.operatorNames + ["between"]
        guard let fields = fields(value, at: path, required: ["key"], optional: names + ["tolerance"]),
            let key = string(fields, "key", at: path), let name = singleOperator(fields, names, at: path)
        else { return nil }
        let at = path.appending(name)
        var tolerance: JSONNumber?
        if let value = fields["tolerance"] {
            guard name == "eq" else {
                error(path.appending("tolerance"), "unknown_field", "tolerance goes with eq")
                return nil
            }
            guard let number = finiteNumber(value, at: path.appending("tolerance")) else { return nil }
            guard number.double >= 0 else {
                error(path.appending("tolerance"), "negative_tolerance", "tolerance must be at least 0")
                return nil
            }
            tolerance = number
        }
        if name == "between" {
            guard case .array(let bounds) = fields["between"]!, bounds.count == 2,
                case .number(let low) = bounds[0], case .number(let high) = bounds[1], low.double.isFinite, high.double.isFinite
            else { return wrongType(at, "[low, high] finite numbers") }
            guard let order = NumberOrder.compare(NumberOrder.Value(low), NumberOrder.Value(high)), order <= 0 else {
                error(at, "invalid_range", "between needs low <= high")
                return nil
            }
            return .number(key: key, .between(low, high))
        }
        let operand = fields[name]!
        if Self.isReference(operand) {
            guard let op = ContextComparison.Operator(rawValue: name) else {
                return wrongType(at, "a value: only eq, ne, lt, lte, gt, gte take context values")
            }
            guard let right = reference(operand, at: at) else { return nil }
            return .comparison(ContextComparison(left: .attribute(key), op: op, right: right, tolerance: tolerance))
        }
        // Only `eq` with a tolerance and a literal is left here.
        guard let tolerance, let target = finiteNumber(operand, at: at) else { return nil }
        return .number(key: key, .near(target, tolerance: tolerance))
    }
}
