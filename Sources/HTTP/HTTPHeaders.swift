/// An ordered list of header fields. Names keep the case they arrived in and are matched case-insensitively
/// (RFC 9110 §5.1); a name may repeat.
public struct HTTPHeaders: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    public struct Field: Sendable, Equatable {
        public var name: String
        public var value: String

        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    public private(set) var fields: [Field]
    /// Where the first field of each `KnownField` name is, kept by every change to `fields`.
    private var known = KnownFieldSlots()

    public init() { fields = [] }

    /// Room for `capacity` fields at once: a parsed head knows its count, and growing field by field reallocates.
    public init(minimumCapacity capacity: Int) {
        fields = []
        fields.reserveCapacity(capacity)
    }

    public init(_ pairs: [(String, String)]) {
        fields = []
        // `[:]`, every defaulted field list (`HTTPResponse.json`'s, on each answer): reserving room for none was
        // most of some 140 instructions.
        guard !pairs.isEmpty else { return }
        fields.reserveCapacity(pairs.count)
        for (name, value) in pairs { add(name, value) }
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }

    public var count: Int { fields.count }

    /// Whether `other` is this very list, its fields in the same storage: storing one in place of the other would
    /// change nothing. Two lists with equal fields in two storages are not.
    func isSameList(as other: borrowing HTTPHeaders) -> Bool {
        guard known == other.known else { return false }
        return fields.withUnsafeBufferPointer { mine in
            other.fields.withUnsafeBufferPointer { theirs in mine.baseAddress == theirs.baseAddress && mine.count == theirs.count }
        }
    }
    public var isEmpty: Bool { fields.isEmpty }

    public func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }

    /// Every field gone; the list keeps its room when `keepingCapacity` (a parser filling it again).
    public mutating func removeAll(keepingCapacity: Bool = false) {
        if keepingCapacity {
            // Field by field from the end: the array's `removeAll(keepingCapacity:)` went through the generic
            // `replaceSubrange`, some 250 instructions for a head's few fields.
            while !fields.isEmpty { fields.removeLast() }
        } else {
            fields = []
        }
        known = KnownFieldSlots()
    }

    public mutating func reserveCapacity(_ capacity: Int) { fields.reserveCapacity(capacity) }

    public mutating func add(_ name: String, _ value: String) {
        if let field = KnownField(name) { known.noteFirst(field, at: fields.count) }
        fields.append(Field(name: name, value: value))
    }

    /// Replaces every field of that name with one field.
    public mutating func set(_ name: String, _ value: String) {
        remove(name)
        add(name, value)
    }

    public mutating func remove(_ name: String) {
        let before = fields.count
        fields.removeAll { Self.namesMatch($0.name, name) }
        guard fields.count != before else { return }
        // Rare (a handler replacing a field): the positions after a removed field moved, so all are found again.
        known = KnownFieldSlots()
        for index in fields.indices {
            if let field = KnownField(fields[index].name) { known.noteFirst(field, at: index) }
        }
    }

    /// The first value of the field, if present. A known name is found where it was noted, without a pass.
    public subscript(name: String) -> String? {
        if let field = KnownField(name) { return self[field] }
        return firstValue(name)
    }

    /// The first value of a known field: where `add` noted it, or nowhere.
    public subscript(field: KnownField) -> String? {
        switch known.slot(field) {
        case .absent: return nil
        case .at(let index): return fields[index].value
        case .beyond: return firstValue(field.name)
        }
    }

    private func firstValue(_ name: String) -> String? {
        // Indices, not `first(where:)`: that copied each field it passed (two strings retained and released).
        for index in fields.indices where Self.namesMatch(fields[index].name, name) { return fields[index].value }
        return nil
    }

    /// Every value of the field, in order.
    public func values(_ name: String) -> [String] {
        fields.filter { Self.namesMatch($0.name, name) }.map(\.value)
    }

    public func contains(_ name: String) -> Bool { self[name] != nil }

    /// The comma-separated list elements of every field of that name (RFC 9110 §5.6.1), trimmed, empties dropped.
    public func listElements(_ name: String) -> [Substring] {
        values(name).flatMap { value in
            value.split(separator: ",").map { $0.trimmingOptionalWhitespace }.filter { !$0.isEmpty }
        }
    }

    /// Whether the list-valued field holds a token, compared case-insensitively (`Connection: close`).
    public func listContains(_ name: String, token: String) -> Bool {
        listElements(name).contains { ASCII.equalsIgnoringCase($0.utf8, token.utf8) }
    }

    /// Every header lookup comes here, several per request. Lengths first (O(1) for a native string, and different
    /// for almost every pair compared), then the bytes in place.
    static func namesMatch(_ a: String, _ b: String) -> Bool {
        guard a.utf8.count == b.utf8.count else { return false }
        // The same representation is the same bytes: a parsed name interned as the very literal looked up
        // (`CommonFieldNames`), or equal small strings. Two words compared, no call; not `==`, which is Unicode
        // canonical equivalence and would make two spellings one name.
        if unsafeBitCast(a, to: (UInt64, UInt64).self) == unsafeBitCast(b, to: (UInt64, UInt64).self) { return true }
        let inPlace = a.utf8.withContiguousStorageIfAvailable { a in
            b.utf8.withContiguousStorageIfAvailable { b in ASCII.equalsIgnoringCase(a, b) }
        }
        return inPlace.flatMap { $0 } ?? ASCII.equalsIgnoringCase(a.utf8, b.utf8)
    }
}
