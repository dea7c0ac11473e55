/// A small string-keyed map stored as one array of pairs and searched linearly.
///
/// A user's context holds a handful of counters, events and flags. For maps that small, comparing a few keys
/// beats hashing one (String hashing was a third of an evaluation's time), and one array costs far fewer bytes
/// per user than a `Dictionary` (one allocation, no hash table). Maps that grow past `indexThreshold` keys also
/// keep a dictionary index, so a pathological context stays O(1).
public struct CompactMap<Value: Sendable & Equatable>: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    public struct Entry: Sendable, Equatable {
        public var key: String
        public var value: Value

        @inlinable
        public init(key: String, value: Value) {
            self.key = key
            self.value = value
        }
    }

    // Inlinable so other modules (the store's reducer) get specialized code, not generic witness calls.
    @usableFromInline var storage: [Entry] = []
    @usableFromInline var index: [String: Int]?

    public var entries: [Entry] { storage }

    @inlinable static var indexThreshold: Int { 24 }

    @inlinable public init() {}

    public init(dictionaryLiteral elements: (String, Value)...) {
        for (key, value) in elements { self[key] = value }
    }

    public init<S: Sequence>(_ pairs: S) where S.Element == (String, Value) {
        for (key, value) in pairs { self[key] = value }
    }

    @inlinable public var count: Int { storage.count }
    @inlinable public var isEmpty: Bool { storage.isEmpty }
    public var keys: [String] { entries.map(\.key) }
    public var values: [Value] { entries.map(\.value) }

    @inlinable
    func position(of key: String) -> Int? {
        if let index { return index[key] }
        for position in storage.indices where storage[position].key == key { return position }
        return nil
    }

    @inlinable
    public subscript(key: String) -> Value? {
        get { position(of: key).map { storage[$0].value } }
        set {
            if let newValue { updateValue(newValue, forKey: key) } else { removeValue(forKey: key) }
        }
    }

    @inlinable
    public subscript(key: String, default fallback: @autoclosure () -> Value) -> Value {
        get { self[key] ?? fallback() }
        set { self[key] = newValue }
    }

    @inlinable
    @discardableResult
    public mutating func updateValue(_ value: Value, forKey key: String) -> Value? {
        if let position = position(of: key) {
            let old = storage[position].value
            storage[position].value = value
            return old
        }
        // Grow by two, not double: most maps stay small, and bytes per user matter at millions of users.
        if storage.capacity == storage.count { storage.reserveCapacity(storage.isEmpty ? 2 : storage.count + 2) }
        storage.append(Entry(key: key, value: value))
        if index != nil {
            index![key] = storage.count - 1
        } else if storage.count > Self.indexThreshold {
            index = Dictionary(uniqueKeysWithValues: storage.enumerated().map { ($1.key, $0) })
        }
        return nil
    }

    @inlinable
    @discardableResult
    public mutating func removeValue(forKey key: String) -> Value? {
        guard let position = position(of: key) else { return nil }
        let old = storage[position].value
        // Swap-remove keeps removal O(1); order carries no meaning here.
        let last = storage.count - 1
        if position != last { storage.swapAt(position, last) }
        storage.removeLast()
        if index != nil {
            index![key] = nil
            if position != last { index![storage[position].key] = position }
            if storage.count <= Self.indexThreshold / 2 { index = nil }
        }
        return old
    }

    @inlinable
    public mutating func removeAll() {
        storage = []
        index = nil
    }

    public func makeIterator() -> AnyIterator<(String, Value)> {
        var iterator = entries.makeIterator()
        return AnyIterator { iterator.next().map { ($0.key, $0.value) } }
    }

    /// Key order carries no meaning: maps with the same pairs are equal.
    public static func == (lhs: CompactMap, rhs: CompactMap) -> Bool {
        guard lhs.count == rhs.count else { return false }
        for entry in lhs.entries where rhs[entry.key] != entry.value { return false }
        return true
    }

    /// Pairs sorted by key, for stable output.
    public var sorted: [(key: String, value: Value)] {
        entries.sorted { $0.key < $1.key }.map { (key: $0.key, value: $0.value) }
    }
}
