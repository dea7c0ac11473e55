/// A small string-keyed map stored as two parallel arrays and searched linearly.
///
/// A user's context holds a handful of counters, events and flags. For maps that small, comparing a few keys
/// beats hashing one (String hashing was a third of an evaluation's time), and two arrays cost far fewer bytes
/// per user than a `Dictionary`. Maps that grow past `indexThreshold` keys also keep a dictionary index, so a
/// pathological context stays O(1).
public struct CompactMap<Value: Sendable & Equatable>: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    public private(set) var keys: [String] = []
    public private(set) var values: [Value] = []
    private var index: [String: Int]?

    static var indexThreshold: Int { 24 }

    public init() {}

    public init(dictionaryLiteral elements: (String, Value)...) {
        for (key, value) in elements { self[key] = value }
    }

    public init<S: Sequence>(_ pairs: S) where S.Element == (String, Value) {
        for (key, value) in pairs { self[key] = value }
    }

    public var count: Int { keys.count }
    public var isEmpty: Bool { keys.isEmpty }

    @inline(__always)
    func position(of key: String) -> Int? {
        if let index { return index[key] }
        for position in keys.indices where keys[position] == key { return position }
        return nil
    }

    public subscript(key: String) -> Value? {
        get { position(of: key).map { values[$0] } }
        set {
            if let newValue { updateValue(newValue, forKey: key) } else { removeValue(forKey: key) }
        }
    }

    public subscript(key: String, default fallback: @autoclosure () -> Value) -> Value {
        get { self[key] ?? fallback() }
        set { self[key] = newValue }
    }

    @discardableResult
    public mutating func updateValue(_ value: Value, forKey key: String) -> Value? {
        if let position = position(of: key) {
            let old = values[position]
            values[position] = value
            return old
        }
        keys.append(key)
        values.append(value)
        if index != nil {
            index![key] = keys.count - 1
        } else if keys.count > Self.indexThreshold {
            index = Dictionary(uniqueKeysWithValues: keys.enumerated().map { ($1, $0) })
        }
        return nil
    }

    @discardableResult
    public mutating func removeValue(forKey key: String) -> Value? {
        guard let position = position(of: key) else { return nil }
        let old = values[position]
        // Swap-remove keeps removal O(1); order carries no meaning here.
        let last = keys.count - 1
        if position != last {
            keys.swapAt(position, last)
            values.swapAt(position, last)
        }
        keys.removeLast()
        values.removeLast()
        if index != nil {
            index![key] = nil
            if position != last { index![keys[position]] = position }
            if keys.count <= Self.indexThreshold / 2 { index = nil }
        }
        return old
    }

    public mutating func removeAll() {
        keys = []
        values = []
        index = nil
    }

    public func makeIterator() -> Zip2Sequence<[String], [Value]>.Iterator { zip(keys, values).makeIterator() }

    /// Key order carries no meaning: maps with the same pairs are equal.
    public static func == (lhs: CompactMap, rhs: CompactMap) -> Bool {
        guard lhs.count == rhs.count else { return false }
        for (key, value) in lhs where rhs[key] != value { return false }
        return true
    }

    /// Pairs sorted by key, for stable output.
    public var sorted: [(key: String, value: Value)] {
        zip(keys, values).sorted { $0.0 < $1.0 }.map { (key: $0.0, value: $0.1) }
    }
}
