extension JSONLogic {
    /// The operators that take their arguments evaluated; `nil` when `name` is none of them.
    ///
    /// Arithmetic keeps NaN and the infinities as numbers, as JavaScript does: `{"+": [1, "abc"]}` is NaN, and NaN
    /// compares false with everything, so `{"<": [{"+": [1, "abc"]}, 5]}` is false rather than `null < 5`.
    // swiftlint:disable:next cyclomatic_complexity
    static func builtin(_ name: String, _ values: [JSONValue], _ data: JSONValue) -> JSONValue? {
        switch name {
        case "var": return variable(values, data)
        case "missing": return missing(values, data)
        case "missing_some":
            guard values.count == 2, let needed = number(values[0]), case .array(let keys) = values[1] else { return .null }
            let absent = missing(keys, data).arrayValue ?? []
            // Compared as doubles: `needed` may be any number, 1e300 and infinities included.
            return Double(keys.count - absent.count) >= needed ? .array([]) : .array(absent)
        case "==": return .bool(values.count >= 2 && looseEquals(values[0], values[1]))
        case "!=": return .bool(!(values.count >= 2 && looseEquals(values[0], values[1])))
        case "===": return .bool(values.count >= 2 && strictEquals(values[0], values[1]))
        case "!==": return .bool(!(values.count >= 2 && strictEquals(values[0], values[1])))
        case "<", "<=", ">", ">=": return compare(name, values)
        case "!": return .bool(!truthy(values.first ?? .null))
        case "!!": return .bool(truthy(values.first ?? .null))
        case "in":
            guard values.count >= 2 else { return .bool(false) }
            switch values[1] {
            // JavaScript's `indexOf` on strings: code units, no normalization, and "" is in every string.
            case .string(let haystack): return .bool(containsBytes(haystack, string(values[0])))
            case .array(let items): return .bool(items.contains { strictEquals($0, values[0]) })
            default: return .bool(false)
            }
        case "cat": return .string(values.map(string).joined())
        case "substr": return substring(values)
        case "+": return numberValue(values.reduce(0.0) { $0 + numeric($1) })
        case "*": return numberValue(values.reduce(1.0) { $0 * numeric($1) })
        case "-":
            guard let first = values.first else { return .null }
            if values.count == 1 { return numberValue(-numeric(first)) }
            return numberValue(numeric(first) - numeric(values[1]))
        case "/":
            guard values.count == 2 else { return .null }
            return numberValue(numeric(values[0]) / numeric(values[1]))
        case "%":
            // JavaScript's `%` truncates (the sign of the dividend), as `truncatingRemainder` does.
            guard values.count == 2 else { return .null }
            return numberValue(numeric(values[0]).truncatingRemainder(dividingBy: numeric(values[1])))
        case "min", "max":
            // `Math.min`/`Math.max`: any NaN argument makes the answer NaN. No argument: null, as flagd answers.
            guard !values.isEmpty else { return .null }
            let numbers = values.map(numeric)
            if numbers.contains(where: \.isNaN) { return numberValue(.nan) }
            return numberValue(numbers.reduce(numbers[0]) { name == "min" ? Swift.min($0, $1) : Swift.max($0, $1) })
        case "merge":
            return .array(
                values.flatMap { value -> [JSONValue] in
                    if case .array(let items) = value { return items }
                    return [value]
                })
        default:
            return nil
        }
    }

    /// `{"var": "a.b.0"}` / `{"var": ["a.b", default]}`; `""` is the whole data. A path that ends at, or passes
    /// through, `null` answers the default: flagd treats a key present with value null as absent.
    static func variable(_ values: [JSONValue], _ data: JSONValue) -> JSONValue {
        let fallback = values.count > 1 ? values[1] : .null
        let path: String
        switch values.first ?? .string("") {
        case .string(let text): path = text
        case .number(let number): path = string(.number(number))
        case .null: path = ""
        default: return fallback
        }
        guard let found = lookup(path, in: data), found != .null else { return fallback }
        return found
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

    static func missing(_ values: [JSONValue], _ data: JSONValue) -> JSONValue {
        var keys = values
        if values.count == 1, case .array(let list) = values[0] { keys = list }
        return .array(
            keys.filter { key in
                let value = lookup(string(key), in: data)
                return value == nil || value == .null || value == .string("")
            })
    }

    /// `<`, `<=`, `>`, `>=`; the three-argument forms test "between" (`a < b < c`, and for `>` `a > b > c`, as
    /// flagd's evaluator reads them).
    static func compare(_ name: String, _ values: [JSONValue]) -> JSONValue {
        guard values.count >= 2 else { return .bool(false) }
        let holds: (JSONValue, JSONValue) -> Bool = { a, b in
            guard let order = order(a, b) else { return false }
            switch name {
            case "<": return order < 0
            case "<=": return order <= 0
            case ">": return order > 0
            default: return order >= 0
            }
        }
        if values.count >= 3 { return .bool(holds(values[0], values[1]) && holds(values[1], values[2])) }
        return .bool(holds(values[0], values[1]))
    }

    /// JavaScript's `substr(start, length)` as jsonlogic.js applies it, over Unicode scalars (flagd's evaluator
    /// slices runes): positions are truncated toward zero and clamped to the string, so any number — huge, infinite,
    /// NaN (as 0) — gives a substring, never a trap; a negative length drops that many scalars from the end.
    static func substring(_ values: [JSONValue]) -> JSONValue {
        let text = Array(string(values.first ?? .string("")).unicodeScalars)
        let count = text.count
        var start = clampedIndex(values.count > 1 ? number(values[1]) ?? 0 : 0, limit: count)
        if start < 0 { start = max(0, count + start) }
        var end = count
        if values.count > 2 {
            let length = clampedIndex(number(values[2]) ?? 0, limit: count)
            end = length < 0 ? max(start, count + length) : min(count, start + length)
        }
        var result = String.UnicodeScalarView()
        result.append(contentsOf: text[start..<max(start, end)])
        return .string(String(result))
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

    /// Substring search over UTF-8 bytes: no canonical equivalence, and the empty string is found everywhere.
    static func containsBytes(_ haystack: String, _ needle: String) -> Bool {
        let hay = Array(haystack.utf8)
        let pin = Array(needle.utf8)
        if pin.isEmpty { return true }
        guard pin.count <= hay.count else { return false }
        for start in 0...(hay.count - pin.count) where hay[start] == pin[0] {
            if hay[start..<start + pin.count].elementsEqual(pin) { return true }
        }
        return false
    }
}
