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
        // Integer literals convert exactly over the whole Int range; others only when the double is exact.
        if isIntegerLiteral { return Int(text) }
        guard double.isFinite, double == double.rounded(.towardZero), abs(double) <= 9.007_199_254_740_992e15 else {
            return nil
        }
        return Int(double)
    }

    /// Written without a fraction or exponent.
    public var isIntegerLiteral: Bool { !text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) }

    public var description: String { text }

    public static func == (lhs: JSONNumber, rhs: JSONNumber) -> Bool { lhs.double == rhs.double }
    public func hash(into hasher: inout Hasher) { hasher.combine(double) }
}

/// A JSON object that remembers member order (for faithful round trips). Small objects are searched linearly,
/// which beats hashing at the sizes contexts and rules use; large ones keep a hash index as well, so building or
/// reading an object of any size is linear overall. Member names are compared as UTF-8 bytes: NFC and NFD spellings
/// are two members, as they are two keys everywhere in specd.
public struct JSONObject: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
    public private(set) var keys: [String] = []
    public private(set) var values: [JSONValue] = []
    private var index: [ByteKey: Int]?

    static let indexThreshold = 24

    public init() {}

    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        for (key, value) in elements { self[key] = value }
    }

    public init(_ pairs: [(String, JSONValue)]) {
        keys.reserveCapacity(pairs.count)
        values.reserveCapacity(pairs.count)
        for (key, value) in pairs { self[key] = value }
    }

    public var count: Int { keys.count }
    public var isEmpty: Bool { keys.isEmpty }

    @inline(__always)
    private func position(of key: String) -> Int? {
        if let index { return index[ByteKey(key)] }
        for position in keys.indices where sameUTF8(keys[position], key) { return position }
        return nil
    }

    public subscript(key: String) -> JSONValue? {
        get { position(of: key).map { values[$0] } }
        set {
            if let position = position(of: key) {
                if let newValue {
                    values[position] = newValue
                } else {
                    keys.remove(at: position)
                    values.remove(at: position)
                    index = nil
                    if keys.count > Self.indexThreshold { rebuildIndex() }
                }
            } else if let newValue {
                keys.append(key)
                values.append(newValue)
                if index != nil { index![ByteKey(key)] = keys.count - 1 } else if keys.count > Self.indexThreshold { rebuildIndex() }
            }
        }
    }

    private mutating func rebuildIndex() {
        var built = [ByteKey: Int](minimumCapacity: keys.count * 2)
        for (position, key) in keys.enumerated() { built[ByteKey(key)] = position }
        index = built
    }

    public func makeIterator() -> Zip2Sequence<[String], [JSONValue]>.Iterator { zip(keys, values).makeIterator() }

    /// Members compare as sets: order is kept for writing, not meaning.
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.count == rhs.count else { return false }
        for (key, value) in lhs where rhs[key] != value { return false }
        return true
    }

    public func hash(into hasher: inout Hasher) {
        // Order-insensitive, to agree with ==.
        var combined = 0
        for (key, value) in self {
            var member = Hasher()
            member.combine(ByteKey(key))
            member.combine(value)
            combined ^= member.finalize()
        }
        hasher.combine(count)
        hasher.combine(combined)
    }
}
