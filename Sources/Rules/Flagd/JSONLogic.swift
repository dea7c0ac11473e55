import Foundation

/// A JSON Logic evaluator (jsonlogic.com semantics, as flagd uses them): operators are objects with one key, data is
/// read with `var`, and values coerce the way JavaScript does. Custom operators (flagd's `fractional`, `sem_ver`,
/// ...) plug in through `extensions`. Evaluation never throws: a bad argument yields `null`.
public struct JSONLogic: Sendable {
    public typealias Operator = @Sendable (_ arguments: [JSONValue], _ data: JSONValue, _ logic: JSONLogic) -> JSONValue

    public var extensions: [String: Operator]

    public init(extensions: [String: Operator] = [:]) {
        self.extensions = extensions
    }

    public func apply(_ rule: JSONValue, _ data: JSONValue) -> JSONValue {
        switch rule {
        case .array(let items):
            return .array(items.map { apply($0, data) })
        case .object(let object):
            guard object.count == 1, let name = object.keys.first, let raw = object[name] else { return rule }
            let arguments: [JSONValue]
            if case .array(let items) = raw { arguments = items } else { arguments = [raw] }
            return evaluate(name, arguments, data)
        default:
            return rule
        }
    }

    // swiftlint:disable:next cyclomatic_complexity
    func evaluate(_ name: String, _ arguments: [JSONValue], _ data: JSONValue) -> JSONValue {
        if let custom = extensions[name] { return custom(arguments, data, self) }
        switch name {
        // Operators that decide which arguments to evaluate.
        case "if", "?:":
            var index = 0
            while index + 1 < arguments.count {
                if JSONLogic.truthy(apply(arguments[index], data)) { return apply(arguments[index + 1], data) }
                index += 2
            }
            return index < arguments.count ? apply(arguments[index], data) : .null
        case "and":
            var last = JSONValue.null
            for argument in arguments {
                last = apply(argument, data)
                if !JSONLogic.truthy(last) { return last }
            }
            return last
        case "or":
            var last = JSONValue.null
            for argument in arguments {
                last = apply(argument, data)
                if JSONLogic.truthy(last) { return last }
            }
            return last
        case "map", "filter", "all", "none", "some":
            return iterate(name, arguments, data)
        case "reduce":
            guard arguments.count >= 2, case .array(let items) = apply(arguments[0], data) else {
                return arguments.count > 2 ? apply(arguments[2], data) : .null
            }
            var accumulator = arguments.count > 2 ? apply(arguments[2], data) : .null
            for item in items {
                accumulator = apply(arguments[1], ["current": item, "accumulator": accumulator])
            }
            return accumulator
        default:
            break
        }
        let values = arguments.map { apply($0, data) }
        switch name {
        case "var": return variable(values, data)
        case "missing": return missing(values, data)
        case "missing_some":
            guard values.count == 2, let needed = JSONLogic.number(values[0]), case .array(let keys) = values[1] else { return .null }
            let absent = missing(keys, data).arrayValue ?? []
            // Compared as doubles: `needed` may be any number, 1e300 and infinities included.
            return Double(keys.count - absent.count) >= needed ? .array([]) : .array(absent)
        case "==": return .bool(values.count >= 2 && JSONLogic.looseEquals(values[0], values[1]))
        case "!=": return .bool(!(values.count >= 2 && JSONLogic.looseEquals(values[0], values[1])))
        case "===": return .bool(values.count >= 2 && JSONLogic.strictEquals(values[0], values[1]))
        case "!==": return .bool(!(values.count >= 2 && JSONLogic.strictEquals(values[0], values[1])))
        case "<", "<=", ">", ">=": return compare(name, values)
        case "!": return .bool(!JSONLogic.truthy(values.first ?? .null))
        case "!!": return .bool(JSONLogic.truthy(values.first ?? .null))
        case "in":
            guard values.count >= 2 else { return .bool(false) }
            switch values[1] {
            case .string(let haystack): return .bool(haystack.contains(JSONLogic.string(values[0])))
            case .array(let items): return .bool(items.contains { JSONLogic.strictEquals($0, values[0]) })
            default: return .bool(false)
            }
        case "cat": return .string(values.map(JSONLogic.string).joined())
        case "substr": return substring(values)
        case "+": return JSONLogic.numberValue(values.reduce(0.0) { $0 + (JSONLogic.number($1) ?? .nan) })
        case "*": return JSONLogic.numberValue(values.reduce(1.0) { $0 * (JSONLogic.number($1) ?? .nan) })
        case "-":
            guard let first = values.first.flatMap(JSONLogic.number) else { return .null }
            if values.count == 1 { return JSONLogic.numberValue(-first) }
            return JSONLogic.numberValue(first - (JSONLogic.number(values[1]) ?? .nan))
        case "/":
            guard values.count == 2, let a = JSONLogic.number(values[0]), let b = JSONLogic.number(values[1]) else { return .null }
            return JSONLogic.numberValue(a / b)
        case "%":
            guard values.count == 2, let a = JSONLogic.number(values[0]), let b = JSONLogic.number(values[1]) else { return .null }
            return JSONLogic.numberValue(a.truncatingRemainder(dividingBy: b))
        case "min", "max":
            let numbers = values.compactMap(JSONLogic.number)
            guard numbers.count == values.count, !numbers.isEmpty else { return .null }
            return JSONLogic.numberValue(name == "min" ? numbers.min()! : numbers.max()!)
        case "merge":
            return .array(
                values.flatMap { value -> [JSONValue] in
                    if case .array(let items) = value { return items }
                    return [value]
                })
        default:
            return .null
        }
    }

    private func iterate(_ name: String, _ arguments: [JSONValue], _ data: JSONValue) -> JSONValue {
        guard arguments.count >= 2, case .array(let items) = apply(arguments[0], data) else {
            return name == "map" || name == "filter" ? .array([]) : .bool(name == "none")
        }
        switch name {
        case "map": return .array(items.map { apply(arguments[1], $0) })
        case "filter": return .array(items.filter { JSONLogic.truthy(apply(arguments[1], $0)) })
        // jsonlogic.com: `all` of an empty array is false.
        case "all": return .bool(!items.isEmpty && items.allSatisfy { JSONLogic.truthy(apply(arguments[1], $0)) })
        case "none": return .bool(!items.contains { JSONLogic.truthy(apply(arguments[1], $0)) })
        default: return .bool(items.contains { JSONLogic.truthy(apply(arguments[1], $0)) })
        }
    }

    /// `{"var": "a.b.0"}` / `{"var": ["a.b", default]}`; `""` is the whole data.
    private func variable(_ values: [JSONValue], _ data: JSONValue) -> JSONValue {
        let fallback = values.count > 1 ? values[1] : .null
        let path: String
        switch values.first ?? .string("") {
        case .string(let text): path = text
        case .number(let number): path = number.text
        case .null: path = ""
        default: return fallback
        }
        return JSONLogic.lookup(path, in: data) ?? fallback
    }

    static func lookup(_ path: String, in data: JSONValue) -> JSONValue? {
        if path.isEmpty { return data }
        var current = data
        for part in path.split(separator: ".", omittingEmptySubsequences: false) {
            switch current {
            case .object(let object):
                guard let next = object[String(part)] else { return nil }
                current = next
            case .array(let items):
                guard let index = Int(part), items.indices.contains(index) else { return nil }
                current = items[index]
            default:
                return nil
            }
        }
        return current
    }

    private func missing(_ values: [JSONValue], _ data: JSONValue) -> JSONValue {
        var keys = values
        if values.count == 1, case .array(let list) = values[0] { keys = list }
        return .array(
            keys.filter { key in
                let value = JSONLogic.lookup(JSONLogic.string(key), in: data)
                return value == nil || value == .null || value == .string("")
            })
    }

    private func compare(_ name: String, _ values: [JSONValue]) -> JSONValue {
        guard values.count >= 2 else { return .bool(false) }
        let holds: (JSONValue, JSONValue) -> Bool = { a, b in
            guard let order = JSONLogic.order(a, b) else { return false }
            switch name {
            case "<": return order < 0
            case "<=": return order <= 0
            case ">": return order > 0
            default: return order >= 0
            }
        }
        // The three-argument forms of < and <= test "between".
        if values.count >= 3, name == "<" || name == "<=" { return .bool(holds(values[0], values[1]) && holds(values[1], values[2])) }
        return .bool(holds(values[0], values[1]))
    }

    /// JavaScript's `substr(start, length)` as jsonlogic.js applies it: positions are truncated toward zero and
    /// clamped to the string, so any number — huge, infinite, NaN (as 0) — gives a substring, never a trap; a
    /// negative length drops that many characters from the end.
    private func substring(_ values: [JSONValue]) -> JSONValue {
        let text = Array(JSONLogic.string(values.first ?? .string("")))
        let count = text.count
        var start = JSONLogic.clampedIndex(values.count > 1 ? JSONLogic.number(values[1]) ?? 0 : 0, limit: count)
        if start < 0 { start = max(0, count + start) }
        var end = count
        if values.count > 2 {
            let length = JSONLogic.clampedIndex(JSONLogic.number(values[2]) ?? 0, limit: count)
            end = length < 0 ? max(start, count + length) : min(count, start + length)
        }
        return .string(String(text[start..<max(start, end)]))
    }

    /// A JavaScript integer position (truncated toward zero) clamped to `-limit...limit`: beyond that every
    /// position means the same, so no conversion of a huge or infinite double can trap.
    static func clampedIndex(_ value: Double, limit: Int) -> Int {
        let bound = Double(limit)
        if value.isNaN { return 0 }
        if value >= bound { return limit }
        if value <= -bound { return -limit }
        return Int(value.rounded(.towardZero))
    }
}
