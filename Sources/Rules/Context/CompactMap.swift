import Foundation

/// A small string-keyed map stored as one array of pairs and searched linearly.
///
/// A user's context holds a handful of counters, events and flags. For maps that small, comparing a few keys
/// beats hashing one (String hashing was a third of an evaluation's time), and one array costs far fewer bytes
/// per user than a `Dictionary` (one allocation, no hash table). Maps that grow past `indexThreshold` keys also
/// keep a hash index, so every operation stays O(1) however large a context gets.
///
/// Keys are compared as UTF-8 bytes, never with `String ==` (canonical equivalence): NFC and NFD spellings of a
/// key are two keys (README, "Users and keys").
public struct CompactMap<Value: Sendable & Equatable>: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    public struct Entry: Sendable, Equatable {
        public var key: String
        public var value: Value

        @inlinable
        public init(key: String, value: Value) {
            self.key = key
            self.value = value
        }

        public static func == (lhs: Entry, rhs: Entry) -> Bool { lhs.key.bytesEqual(rhs.key) && lhs.value == rhs.value }
    }

    // Inlinable so other modules (the store's reducer) get specialized code, not generic witness calls.
    @usableFromInline var storage: [Entry] = []
    @usableFromInline var index: [ByteKey: Int]?

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
    public var keys: [String] { storage.map(\.key) }
    public var values: [Value] { storage.map(\.value) }

    @inlinable
    func position(of key: String) -> Int? {
        if let index { return index[ByteKey(key)] }
        for position in storage.indices where sameUTF8(storage[position].key, key) { return position }
        return nil
    }

    @inlinable
    public func contains(_ key: String) -> Bool { position(of: key) != nil }

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
        // Grow by two while small (most maps stay small, and bytes per user matter at millions of users), then
        // geometrically: growing by a constant would copy the whole array on every few inserts, quadratic in all.
        if storage.capacity == storage.count {
            let count = storage.count
            storage.reserveCapacity(count < 16 ? count + 2 : count * 2)
        }
        storage.append(Entry(key: key, value: value))
        if index != nil {
            index![ByteKey(key)] = storage.count - 1
        } else if storage.count > Self.indexThreshold {
            buildIndex()
        }
        return nil
    }

    @usableFromInline
    mutating func buildIndex() {
        var built = [ByteKey: Int](minimumCapacity: storage.count * 2)
        for (position, entry) in storage.enumerated() { built[ByteKey(entry.key)] = position }
        index = built
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
            index![ByteKey(key)] = nil
            if position != last { index![ByteKey(storage[position].key)] = position }
            if storage.count <= Self.indexThreshold / 2 { index = nil }
        }
        return old
    }

    /// Room for `count` entries in all, for a decoder that knows how many follow: growing by two at a time (the
    /// right policy for live writes) would copy the array every other entry.
    @inlinable
    public mutating func reserveCapacity(_ count: Int) {
        storage.reserveCapacity(count)
    }

    @inlinable
    public mutating func removeAll() {
        storage = []
        index = nil
    }

    /// A concrete iterator, inlinable: an `AnyIterator` here cost a boxed closure and generic metadata lookups
    /// on every loop over a context's maps (a snapshot walks seven per user).
    public struct Iterator: IteratorProtocol {
        @usableFromInline var base: IndexingIterator<[Entry]>

        @inlinable
        init(_ storage: [Entry]) { base = storage.makeIterator() }

        @inlinable
        public mutating func next() -> (String, Value)? {
            guard let entry = base.next() else { return nil }
            return (entry.key, entry.value)
        }
    }

    @inlinable
    public func makeIterator() -> Iterator { Iterator(storage) }

    /// Key order carries no meaning: maps with the same pairs are equal.
    public static func == (lhs: CompactMap, rhs: CompactMap) -> Bool {
        guard lhs.count == rhs.count else { return false }
        for entry in lhs.storage where rhs[entry.key] != entry.value { return false }
        return true
    }

    /// Pairs sorted by key bytes, for stable output.
    public var sorted: [(key: String, value: Value)] {
        storage.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }.map { (key: $0.key, value: $0.value) }
    }
}

/// Byte equality of two strings' UTF-8, as `String.bytesEqual`, but by `memcmp` over their contiguous storage:
/// the linear key search is the evaluation hot path, and element-wise comparison of the UTF-8 views cost twice
/// as much as `String ==`, where this costs less.
@inlinable @inline(__always)
func sameUTF8(_ a: String, _ b: String) -> Bool {
    let length = a.utf8.count
    guard length == b.utf8.count else { return false }
    let compared = a.utf8.withContiguousStorageIfAvailable { left in
        b.utf8.withContiguousStorageIfAvailable { right in length == 0 || memcmp(left.baseAddress!, right.baseAddress!, length) == 0 }
    }
    if let compared, let equal = compared { return equal }
    return a.utf8.elementsEqual(b.utf8)
}
