import Foundation

/// A small string-keyed map stored as one array of pairs and searched linearly.
///
/// A user's context holds a handful of counters, events and flags. For maps that small, comparing a few keys
/// beats hashing one (String hashing was a third of an evaluation's time), and one array costs far fewer bytes
/// per user than a `Dictionary` (one allocation, no hash table). Maps that grow past `indexThreshold` keys also
/// keep a hash index, so every operation stays O(1) however large a context gets (`Layout`).
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

    /// One reference either way, so a map takes 8 bytes of its context: a context holds eight maps, and its size
    /// is most of a users table's slot, empty slots included (a million users' table at half load spent 136 bytes
    /// a user on the maps' second words). The entries alone while small; past `indexThreshold` keys, entries and a
    /// hash index in a shared box, copied on write.
    @usableFromInline
    enum Layout: Sendable {
        case list([Entry])
        case indexed(Indexed)
    }

    /// A large map's entries and index. Mutated only while uniquely referenced (`isKnownUniquelyReferenced`,
    /// copied first otherwise), so a box another copy of the map can see never changes: sendable as a value is.
    @usableFromInline
    final class Indexed: @unchecked Sendable {
        @usableFromInline var entries: [Entry]
        @usableFromInline var index: [ByteKey: Int]

        @usableFromInline
        init(_ entries: [Entry]) {
            self.entries = entries
            var index = [ByteKey: Int](minimumCapacity: entries.count * 2)
            for (position, entry) in entries.enumerated() { index[ByteKey(entry.key)] = position }
            self.index = index
        }

        @usableFromInline
        init(copying other: Indexed) {
            entries = other.entries
            index = other.index
        }
    }

    // Inlinable so other modules (the store's reducer) get specialized code, not generic witness calls.
    @usableFromInline var layout: Layout = .list([])

    public var entries: [Entry] { storage }

    @inlinable var storage: [Entry] {
        switch layout {
        case .list(let entries): return entries
        case .indexed(let indexed): return indexed.entries
        }
    }

    @inlinable static var indexThreshold: Int { 24 }

    @inlinable public init() {}

    public init(dictionaryLiteral elements: (String, Value)...) {
        for (key, value) in elements { self[key] = value }
    }

    public init<S: Sequence>(_ pairs: S) where S.Element == (String, Value) {
        for (key, value) in pairs { self[key] = value }
    }

    /// A map of `count` pairs read one after another (a decoder's), into one array sized once, where inserting
    /// each through the map checked its layout and reshaped it every time (a snapshot user's first touch decodes
    /// some fifteen pairs). A key met twice keeps its later value, as `updateValue` would; a map past
    /// `indexThreshold` keys is built the indexed way.
    @inlinable
    public init<Failure: Error>(count: Int, reading next: () throws(Failure) -> (String, Value)) throws(Failure) {
        guard count <= Self.indexThreshold else {
            for _ in 0..<count {
                let (key, value) = try next()
                updateValue(value, forKey: key)
            }
            return
        }
        var entries: [Entry] = []
        entries.reserveCapacity(count)
        for _ in 0..<count {
            let (key, value) = try next()
            if let position = Self.position(of: key, in: entries) {
                entries[position].value = value
            } else {
                entries.append(Entry(key: key, value: value))
            }
        }
        layout = .list(entries)
    }

    @inlinable public var count: Int { storage.count }
    @inlinable public var isEmpty: Bool { storage.isEmpty }
    public var keys: [String] { storage.map(\.key) }
    public var values: [Value] { storage.map(\.value) }

    @inlinable
    static func position(of key: String, in entries: [Entry]) -> Int? {
        for position in entries.indices where sameUTF8(entries[position].key, key) { return position }
        return nil
    }

    @inlinable
    func position(of key: String) -> Int? {
        switch layout {
        case .list(let entries): return Self.position(of: key, in: entries)
        case .indexed(let indexed): return indexed.index[ByteKey(key)]
        }
    }

    @inlinable
    public func contains(_ key: String) -> Bool { position(of: key) != nil }

    /// True when both maps are the same storage, so equal without comparing a key: a write leaves the maps it did
    /// not touch sharing their buffers with the state before it. `false` says nothing (equal maps may be copies).
    @inlinable
    public func sharesStorage(with other: CompactMap) -> Bool {
        switch (layout, other.layout) {
        case (.list(let mine), .list(let theirs)):
            guard mine.count == theirs.count else { return false }
            if mine.isEmpty { return true }
            return mine.withUnsafeBufferPointer { a in theirs.withUnsafeBufferPointer { b in a.baseAddress == b.baseAddress } }
        case (.indexed(let mine), .indexed(let theirs)):
            return mine === theirs
        default:
            return false
        }
    }

    @inlinable
    public subscript(key: String) -> Value? {
        get {
            switch layout {
            case .list(let entries):
                // By position, comparing keys in place: `for entry in entries` copied every entry it passed (its
                // key and value retained and released), which for a donation summary's buffers was most of a read.
                guard let position = Self.position(of: key, in: entries) else { return nil }
                return entries[position].value
            case .indexed(let indexed):
                return indexed.index[ByteKey(key)].map { indexed.entries[$0].value }
            }
        }
        set {
            if let newValue { updateValue(newValue, forKey: key) } else { removeValue(forKey: key) }
        }
    }

    /// The value for `key`, read where the map lies (`UserContext+Lookups`). Mutating only to be handed the map's
    /// address: it writes nothing.
    @inlinable
    mutating func valueInPlace(forKey key: String) -> Value? { self[key] }

    /// `withValue`, read where the map lies; writes nothing either.
    @inlinable
    mutating func withValueInPlace<Result>(forKey key: String, _ body: (borrowing Value) -> Result) -> Result? {
        withValue(forKey: key, body)
    }

    /// What `body` makes of the value for `key`, lent in place; `nil` when there is none. The subscript copies the
    /// value out: for a donation summary, its dates and versions retained and released again per evaluation.
    @inlinable
    public func withValue<Result>(forKey key: String, _ body: (borrowing Value) -> Result) -> Result? {
        switch layout {
        case .list(let entries):
            guard let position = Self.position(of: key, in: entries) else { return nil }
            return entries.withUnsafeBufferPointer { body($0[position].value) }
        case .indexed(let indexed):
            guard let position = indexed.index[ByteKey(key)] else { return nil }
            return indexed.entries.withUnsafeBufferPointer { body($0[position].value) }
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
        switch layout {
        case .list(var entries):
            // The payload's only other reference dropped first, so changing `entries` copies nothing.
            layout = .list([])
            defer {
                layout = entries.count > Self.indexThreshold ? .indexed(Indexed(entries)) : .list(entries)
            }
            if let position = Self.position(of: key, in: entries) {
                let old = entries[position].value
                entries[position].value = value
                return old
            }
            // Grow by two while small (most maps stay small, and bytes per user matter at millions of users), then
            // geometrically: growing by a constant would copy the whole array on every few inserts, quadratic in all.
            if entries.capacity == entries.count {
                let count = entries.count
                entries.reserveCapacity(count < 16 ? count + 2 : count * 2)
            }
            entries.append(Entry(key: key, value: value))
            return nil
        case .indexed(var indexed):
            layout = .list([])
            if !isKnownUniquelyReferenced(&indexed) { indexed = Indexed(copying: indexed) }
            defer { layout = .indexed(indexed) }
            if let position = indexed.index[ByteKey(key)] {
                let old = indexed.entries[position].value
                indexed.entries[position].value = value
                return old
            }
            indexed.entries.append(Entry(key: key, value: value))
            indexed.index[ByteKey(key)] = indexed.entries.count - 1
            return nil
        }
    }

    /// Changes the value for `key` in place (`make()`'s, stored under `key`, when there is none) and returns what
    /// `body` returns. In place, a value holding buffers of its own (a donation summary's dates) is changed without
    /// copying them, where reading it out, changing it and storing it back copied them every time.
    ///
    /// `body` cannot throw: in place, a change it made before throwing would stay in a small map and not in a large
    /// one, and a refused reducer step must leave the state as it was.
    @inlinable
    public mutating func withValue<Result>(
        forKey key: String, default make: () -> Value, _ body: (inout Value) -> Result
    ) -> Result {
        guard case .list(var entries) = layout, let position = Self.position(of: key, in: entries) else {
            // New keys, and large maps (their index to keep): the plain way.
            var value = self[key] ?? make()
            let result = body(&value)
            self[key] = value
            return result
        }
        layout = .list([])
        defer { layout = .list(entries) }
        return body(&entries[position].value)
    }

    @inlinable
    @discardableResult
    public mutating func removeValue(forKey key: String) -> Value? {
        guard let position = position(of: key) else { return nil }
        switch layout {
        case .list(var entries):
            layout = .list([])
            let old = Self.swapRemove(at: position, in: &entries)
            layout = .list(entries)
            return old
        case .indexed(var indexed):
            layout = .list([])
            if !isKnownUniquelyReferenced(&indexed) { indexed = Indexed(copying: indexed) }
            let old = Self.swapRemove(at: position, in: &indexed.entries)
            indexed.index[ByteKey(key)] = nil
            if position < indexed.entries.count { indexed.index[ByteKey(indexed.entries[position].key)] = position }
            layout = indexed.entries.count <= Self.indexThreshold / 2 ? .list(indexed.entries) : .indexed(indexed)
            return old
        }
    }

    /// Swap-remove keeps removal O(1); order carries no meaning here.
    @inlinable
    static func swapRemove(at position: Int, in entries: inout [Entry]) -> Value {
        let old = entries[position].value
        let last = entries.count - 1
        if position != last { entries.swapAt(position, last) }
        entries.removeLast()
        return old
    }

    /// Room for `count` entries in all, for a decoder that knows how many follow: growing by two at a time (the
    /// right policy for live writes) would copy the array every other entry.
    @inlinable
    public mutating func reserveCapacity(_ count: Int) {
        guard case .list(var entries) = layout else { return }
        layout = .list([])
        entries.reserveCapacity(count)
        layout = .list(entries)
    }

    @inlinable
    public mutating func removeAll() {
        layout = .list([])
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
