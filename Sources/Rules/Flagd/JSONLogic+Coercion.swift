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
            result = number(fromString: text)
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

    /// JavaScript's `Number(string)`: decimal literals, `Infinity` spelled out, `0x`/`0o`/`0b` integers, blank as 0,
    /// anything else NaN. Swift's `Double(String)` is not it: it also reads `inf`, `nan` and hex floats (`0x1p3`), which
    /// JavaScript (and so JSON Logic) reads as NaN.
    static func number(fromString text: String) -> Double {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.isEmpty { return 0 }
        let bytes = Array(trimmed.utf8)
        switch trimmed {
        case "Infinity", "+Infinity": return .infinity
        case "-Infinity": return -.infinity
        default: break
        }
        if bytes.count > 2, bytes[0] == UInt8(ascii: "0") {
            let radix: Int
            switch bytes[1] {
            case UInt8(ascii: "x"), UInt8(ascii: "X"): radix = 16
            case UInt8(ascii: "o"), UInt8(ascii: "O"): radix = 8
            case UInt8(ascii: "b"), UInt8(ascii: "B"): radix = 2
            default: radix = 0
            }
            if radix != 0 {
                var value = 0.0
                for byte in bytes.dropFirst(2) {
                    guard let digit = digitValue(byte), digit < radix else { return .nan }
                    value = value * Double(radix) + Double(digit)
                }
                return value
            }
        }
        return isDecimalLiteral(bytes) ? Double(trimmed) ?? .nan : .nan
    }

    private static func digitValue(_ byte: UInt8) -> Int? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return Int(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return Int(byte - UInt8(ascii: "a")) + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return Int(byte - UInt8(ascii: "A")) + 10
        default: return nil
        }
    }

    /// `[+-]? (digits [. digits?] | . digits) ([eE] [+-]? digits)?`: ECMAScript's StrDecimalLiteral without `Infinity`.
    private static func isDecimalLiteral(_ bytes: [UInt8]) -> Bool {
        var index = 0
        func digits() -> Int {
            let start = index
            while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") { index += 1 }
            return index - start
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
        var mantissa = digits()
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            mantissa += digits()
        }
        guard mantissa > 0 else { return false }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { return false }
        }
        return index == bytes.count
    }

    /// JavaScript's `String(number)` (ECMAScript Number::toString): the shortest digits that round-trip, written in
    /// full from 1e-6 up to 1e21 and in exponent form (`1e+21`, `1.5e-7`) outside that.
    static func format(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "Infinity" : "-Infinity" }
        if value == 0 { return "0" }
        // Swift's description has the same shortest round-trip digits; only the layout differs.
        var text = "\(abs(value))"
        var exponent = 0
        if let e = text.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            exponent = Int(text[text.index(after: e)...]) ?? 0
            text = String(text[..<e])
        }
        var integral = text
        var fraction = ""
        if let dot = text.firstIndex(of: ".") {
            integral = String(text[..<dot])
            fraction = String(text[text.index(after: dot)...])
        }
        var digits = integral + fraction
        // value = 0.digits × 10^point
        var point = integral.count + exponent
        while digits.hasPrefix("0"), digits.count > 1 {
            digits.removeFirst()
            point -= 1
        }
        while digits.hasSuffix("0"), digits.count > 1 { digits.removeLast() }
        let count = digits.count
        let sign = value < 0 ? "-" : ""
        if count <= point, point <= 21 { return sign + digits + String(repeating: "0", count: point - count) }
        if 0 < point, point <= 21 {
            return sign + digits.prefix(point) + "." + digits.dropFirst(point)
        }
        if -6 < point, point <= 0 { return sign + "0." + String(repeating: "0", count: -point) + digits }
        let mantissa = count == 1 ? digits : digits.prefix(1) + "." + digits.dropFirst()
        let power = point - 1
        return sign + mantissa + "e" + (power < 0 ? "-" : "+") + String(abs(power))
    }

    /// A computed number. NaN and the infinities stay numbers (they compare and print as JavaScript's do); written
    /// as JSON they are `null`, as `JSON.stringify` writes them.
    public static func numberValue(_ value: Double) -> JSONValue {
        .number(JSONNumber(value))
    }

    /// JavaScript `Number(value)`, NaN included.
    static func numeric(_ value: JSONValue) -> Double {
        number(value) ?? .nan
    }

    /// `===`: same type and value (numbers by value, so 1 === 1.0; strings by code points, no normalization).
    public static func strictEquals(_ a: JSONValue, _ b: JSONValue) -> Bool {
        switch (a, b) {
        case (.number(let x), .number(let y)): return x.double == y.double
        case (.string(let x), .string(let y)): return x.bytesEqual(y)
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

    /// JavaScript relational comparison: arrays and objects first become their strings (ToPrimitive: `[]` is `""`,
    /// `[1,2]` is `"1,2"`); then two strings compare as strings (by code point, as flagd's evaluator compares bytes),
    /// anything else as numbers.
    static func order(_ a: JSONValue, _ b: JSONValue) -> Int? {
        func primitive(_ value: JSONValue) -> JSONValue {
            switch value {
            case .array, .object: return .string(string(value))
            default: return value
            }
        }
        if case .string(let x) = primitive(a), case .string(let y) = primitive(b) {
            if x.bytesEqual(y) { return 0 }
            return x.utf8.lexicographicallyPrecedes(y.utf8) ? -1 : 1
        }
        guard let x = number(a), let y = number(b) else { return nil }
        return x < y ? -1 : (x > y ? 1 : 0)
    }
}
