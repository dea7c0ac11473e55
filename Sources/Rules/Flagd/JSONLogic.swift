import Foundation

/// A JSON Logic evaluator (jsonlogic.com semantics, as flagd uses them): operators are objects with one key, data is
/// read with `var`, and values coerce the way JavaScript does. Custom operators (flagd's `fractional`, `sem_ver`,
/// ...) plug in through `extensions`. Bad arguments yield `null` or NaN, as in JavaScript; the one failure is an
/// operator nobody defines, and only when evaluation reaches it (flagd evaluates lazily: an unknown operator or a
/// `$ref` to a missing evaluator in a branch never taken costs nothing).
public struct JSONLogic: Sendable {
    public typealias Operator = @Sendable (_ arguments: [JSONValue], _ data: JSONValue, _ logic: JSONLogic) throws(Failure) -> JSONValue

    /// Why an evaluation has no answer at all.
    public enum Failure: Error, Equatable, Sendable {
        /// An object of one member whose name is no operator, e.g. `{"$ref": "missing"}` (flagd: `PARSE_ERROR`).
        case unknownOperator(String)
        /// The evaluation spent its `EvaluationBudget`: more than `maxSteps` steps, or a string or array past
        /// `maxValueBytes` / `maxElements`. A valid rule can ask for 2^40 bytes (`reduce` doubling a string with
        /// `cat`) or 10^9 steps (three nested `some` over 1 000 items); one request must not cost the process that.
        case overBudget
    }

    /// Operations and iterations one evaluation may take: a flag's targeting takes tens; this bounds it to
    /// milliseconds of CPU whatever the rule.
    public static let maxSteps = 100_000
    /// The longest string an operation may produce (`cat`), in UTF-8 bytes.
    public static let maxValueBytes = 16 * 1024
    /// The most elements an operation may produce (`merge`, `map`, `filter`).
    public static let maxElements = 10_000

    public var extensions: [String: Operator]
    /// The running evaluation's spending, shared by its nested calls and by the extensions (which evaluate their
    /// arguments through `logic`); `nil` until `evaluate` starts one.
    private var budget: EvaluationBudget?

    public init(extensions: [String: Operator] = [:]) {
        self.extensions = extensions
    }

    /// Evaluates `rule` against `data`; an unknown operator on the path taken answers `null`.
    public func apply(_ rule: JSONValue, _ data: JSONValue) -> JSONValue {
        (try? evaluate(rule, data)) ?? .null
    }

    /// Evaluates `rule` against `data`, failing where the path taken meets an unknown operator or the evaluation
    /// spends its budget.
    public func evaluate(_ rule: JSONValue, _ data: JSONValue) throws(Failure) -> JSONValue {
        guard let budget else {
            var counted = self
            counted.budget = EvaluationBudget(steps: Self.maxSteps)
            return try counted.evaluate(rule, data)
        }
        try budget.spend(1)
        switch rule {
        case .array(let items):
            // A literal list (an allow-list of targeting keys) evaluates to itself: taken whole, charged a step per
            // 64 items, where evaluating it item by item spent a step each.
            if !items.contains(where: \.needsEvaluation) {
                try budget.spend(items.count / 64)
                return rule
            }
            var results: [JSONValue] = []
            results.reserveCapacity(items.count)
            for item in items { results.append(try evaluate(item, data)) }
            return .array(results)
        case .object(let object):
            // jsonlogic.com: only an object of exactly one member is an operation; any other object is a value.
            guard object.count == 1, let name = object.keys.first, let raw = object[name] else { return rule }
            let arguments: [JSONValue]
            if case .array(let items) = raw { arguments = items } else { arguments = [raw] }
            return try operation(name, arguments, data)
        default:
            return rule
        }
    }

    func evaluateAll(_ arguments: [JSONValue], _ data: JSONValue) throws(Failure) -> [JSONValue] {
        var values: [JSONValue] = []
        values.reserveCapacity(arguments.count)
        for argument in arguments { values.append(try evaluate(argument, data)) }
        return values
    }

    // swiftlint:disable:next cyclomatic_complexity
    func operation(_ name: String, _ arguments: [JSONValue], _ data: JSONValue) throws(Failure) -> JSONValue {
        if let custom = extensions[name] { return try custom(arguments, data, self) }
        switch name {
        // Operators that decide which arguments to evaluate.
        case "if", "?:":
            var index = 0
            while index + 1 < arguments.count {
                if JSONLogic.truthy(try evaluate(arguments[index], data)) { return try evaluate(arguments[index + 1], data) }
                index += 2
            }
            return index < arguments.count ? try evaluate(arguments[index], data) : .null
        case "and":
            var last = JSONValue.null
            for argument in arguments {
                last = try evaluate(argument, data)
                if !JSONLogic.truthy(last) { return last }
            }
            return last
        case "or":
            var last = JSONValue.null
            for argument in arguments {
                last = try evaluate(argument, data)
                if JSONLogic.truthy(last) { return last }
            }
            return last
        case "map", "filter", "all", "none", "some":
            return try iterate(name, arguments, data)
        case "reduce":
            guard arguments.count >= 2, case .array(let items) = try evaluate(arguments[0], data) else {
                return arguments.count > 2 ? try evaluate(arguments[2], data) : .null
            }
            var accumulator = arguments.count > 2 ? try evaluate(arguments[2], data) : .null
            for item in items {
                accumulator = try evaluate(arguments[1], ["current": item, "accumulator": accumulator])
            }
            try budget?.charge(accumulator)
            return accumulator
        default:
            break
        }
        let values = try evaluateAll(arguments, data)
        if name == "in", values.count >= 2 {
            switch values[1] {
            case .string(let haystack):
                // The byte search compares up to haystack × needle bytes: charged before it runs.
                try budget?.spend(haystack.utf8.count * JSONLogic.string(values[0]).utf8.count / 1024)
            case .array(let items):
                try budget?.spend(items.count / 64)
            default:
                break
            }
        }
        if let result = JSONLogic.builtin(name, values, data) {
            try budget?.charge(result)
            return result
        }
        throw .unknownOperator(name)
    }

    private func iterate(_ name: String, _ arguments: [JSONValue], _ data: JSONValue) throws(Failure) -> JSONValue {
        guard arguments.count >= 2, case .array(let items) = try evaluate(arguments[0], data) else {
            return name == "map" || name == "filter" ? .array([]) : .bool(name == "none")
        }
        switch name {
        case "map":
            var mapped: [JSONValue] = []
            mapped.reserveCapacity(items.count)
            for item in items { mapped.append(try evaluate(arguments[1], item)) }
            try budget?.charge(.array(mapped))
            return .array(mapped)
        case "filter":
            var kept: [JSONValue] = []
            for item in items where JSONLogic.truthy(try evaluate(arguments[1], item)) { kept.append(item) }
            try budget?.charge(.array(kept))
            return .array(kept)
        case "all":
            // jsonlogic.com: `all` of an empty array is false.
            guard !items.isEmpty else { return .bool(false) }
            for item in items where !JSONLogic.truthy(try evaluate(arguments[1], item)) { return .bool(false) }
            return .bool(true)
        default:
            for item in items where JSONLogic.truthy(try evaluate(arguments[1], item)) { return .bool(name == "some") }
            return .bool(name == "none")
        }
    }
}

extension JSONValue {
    /// Whether evaluating the value as JSON Logic could give anything but the value itself: an object (an
    /// operation) or a list that may hold one.
    fileprivate var needsEvaluation: Bool {
        switch self {
        case .object, .array: true
        default: false
        }
    }
}
