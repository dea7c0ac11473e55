import Foundation

extension JSONLogic {
    /// JSON Logic truthiness: false, null, 0, "", [] and NaN are false; everything else (including {}) true.
    public static func truthy(_ value: JSONValue) -> Bool {
        switch value {
        case .null: return false
        case .bool(let flag): return flag
        case .number(let number): return number.double != 0 && !number.double.isNaN
        case .string(let text): return !text.isEmpty
        case .array(let items): return !items.isEmpty
        case .object: return true
        }
    }

    /// JavaScript `Number(value)`; `nil` for NaN.
    public static func number(_ value: JSONValue) -> Double? {
        let result: Double
        switch value {
        case .null: result = 0
        case .bool(let flag): result = flag ? 1 : 0
        case .number(let number): result = number.double
        case .string(let text):
            let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
            result = trimmed.isEmpty ? 0 : Double(trimmed) ?? .nan
        case .array(let items):
            if items.isEmpty { result = 0 } else if items.count == 1 { return number(items[0]) } else { result = .nan }
        case .object: result = .nan
        }
        return result.isNaN ? nil : result
    }

    /// JavaScript `String(value)`.
    public static func string(_ value: JSONValue) -> String {
        switch value {
        case .null: return "null"
        case .bool(let flag): return flag ? "true" : "false"
        case .number(let number): return format(number.double)
        case .string(let text): return text
        case .array(let items): return items.map { $0 == .null ? "" : string($0) }.joined(separator: ",")
        case .object: return "[object Object]"
        }
    }

    static func format(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value == value.rounded(), abs(value) < 1e21 { return String(Int64(value)) }
        return "\(value)"
    }

    /// A computed number: integral results are written as integers, like JavaScript prints them.
    public static func numberValue(_ value: Double) -> JSONValue {
        guard value.isFinite else { return .null }
        return .number(JSONNumber(value))
    }

    /// `===`: same type and value (numbers by value, so 1 === 1.0).
    public static func strictEquals(_ a: JSONValue, _ b: JSONValue) -> Bool {
        switch (a, b) {
        case (.number(let x), .number(let y)): return x.double == y.double
        case (.array, .array), (.object, .object): return false
        default: return a == b
        }
    }

    /// `==` with JavaScript's abstract equality coercions.
    public static func looseEquals(_ a: JSONValue, _ b: JSONValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.null, _), (_, .null): return false
        case (.number, .number), (.string, .string), (.bool, .bool): return strictEquals(a, b)
        case (.object, .object), (.array, .array): return false
        case (.array, _), (.object, _): return looseEquals(.string(string(a)), b)
        case (_, .array), (_, .object): return looseEquals(a, .string(string(b)))
        default:
            guard let x = number(a), let y = number(b) else { return false }
            return x == y
        }
    }

    /// JavaScript relational comparison: two strings compare as strings, anything else as numbers.
    static func order(_ a: JSONValue, _ b: JSONValue) -> Int? {
        if case .string(let x) = a, case .string(let y) = b { return x < y ? -1 : (x > y ? 1 : 0) }
        guard let x = number(a), let y = number(b) else { return nil }
        return x < y ? -1 : (x > y ? 1 : 0)
    }
}
