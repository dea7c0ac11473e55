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
