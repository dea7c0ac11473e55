/// A JSON document as a value. Numbers keep their lexical form so that what a rule author wrote (`0.0`, `1e3`)
/// is written back unchanged, which typed OpenFeature clients rely on.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case number(JSONNumber)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    public static func int(_ value: Int) -> JSONValue { .number(JSONNumber(value)) }
    public static func double(_ value: Double) -> JSONValue { .number(JSONNumber(value)) }

    public var stringValue: String? { if case .string(let value) = self { return value } else { return nil } }
    public var boolValue: Bool? { if case .bool(let value) = self { return value } else { return nil } }
    public var numberValue: JSONNumber? { if case .number(let value) = self { return value } else { return nil } }
    public var arrayValue: [JSONValue]? { if case .array(let value) = self { return value } else { return nil } }
    public var objectValue: JSONObject? { if case .object(let value) = self { return value } else { return nil } }
    public var isNull: Bool { self == .null }

    /// The JSON type name, for error messages and type checks.
    public var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "boolean"
        case .number: return "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }

    /// Member lookup on objects; `nil` for anything else.
    public subscript(key: String) -> JSONValue? { objectValue?[key] }
}

/// A JSON number as written, with its numeric readings.
public struct JSONNumber: Sendable, Hashable, CustomStringConvertible {
    /// The lexical form, exactly as parsed or as formatted for a computed value.
    public let text: String
    public let double: Double

    public init(_ value: Int) {
        text = String(value)
        double = Double(value)
    }

    public init(_ value: Double) {
        if value.isFinite, value == value.rounded(.towardZero), abs(value) < 1e15 {
            text = String(Int(value))
        } else if value.isFinite {
            text = "\(value)"
        } else {
            text = "null"
        }
        double = value
    }

    /// Trusts `text` to be a valid JSON number (the parser's own use).
    init(validatedText text: String) {
        self.text = text
        self.double = Double(text) ?? .nan
    }

    /// The value as an integer when it is one exactly (`3`, `3.0`, `3e0`), else `nil`.
    public var int: Int? {
        guard double.isFinite, double == double.rounded(.towardZero), abs(double) <= 9.007_199_254_740_992e15 else {
            return nil
        }
        if !text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) { return Int(text) }
        return Int(double)
    }

    /// Written without a fraction or exponent.
    public var isIntegerLiteral: Bool { !text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) }

    public var description: String { text }

    public static func == (lhs: JSONNumber, rhs: JSONNumber) -> Bool { lhs.double == rhs.double }
    public func hash(into hasher: inout Hasher) { hasher.combine(double) }
}

/// A JSON object that remembers member order (for faithful round trips) and looks members up by hash.
public struct JSONObject: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
    public private(set) var keys: [String] = []
    private var storage: [String: JSONValue] = [:]

    public init() {}

    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        for (key, value) in elements { self[key] = value }
    }

    public init(_ pairs: [(String, JSONValue)]) {
        for (key, value) in pairs { self[key] = value }
    }

    public var count: Int { keys.count }
    public var isEmpty: Bool { keys.isEmpty }

    public subscript(key: String) -> JSONValue? {
        get { storage[key] }
        set {
            if let newValue {
                if storage.updateValue(newValue, forKey: key) == nil { keys.append(key) }
            } else if storage.removeValue(forKey: key) != nil {
                keys.removeAll { $0 == key }
            }
        }
    }

    public func makeIterator() -> AnyIterator<(key: String, value: JSONValue)> {
        var index = 0
        return AnyIterator {
            guard index < keys.count else { return nil }
            defer { index += 1 }
            let key = keys[index]
            return (key, storage[key]!)
        }
    }

    /// Members compare as sets: order is kept for writing, not meaning.
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool { lhs.storage == rhs.storage }
    public func hash(into hasher: inout Hasher) { hasher.combine(storage) }
}
