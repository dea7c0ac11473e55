/// A user's segments: an array, smaller than a `Set` for the few segments a user belongs to, with a hash index once
/// it grows, so membership, insertion and removal stay O(1) at any size.
///
/// Names are compared as UTF-8 bytes: NFC and NFD spellings are two segments (README, "Users and keys").
public struct SegmentSet: Sendable, Equatable, Sequence, ExpressibleByArrayLiteral {
    // A set is a map to nothing; `Bool` because the map's values must be Equatable.
    @usableFromInline var map = CompactMap<Bool>()

    public init() {}

    public init(arrayLiteral elements: String...) {
        for element in elements { insert(element) }
    }

    /// `count` names read one after another (a decoder's); one named twice is one member.
    @inlinable
    public init<Failure: Error>(count: Int, reading next: () throws(Failure) -> String) throws(Failure) {
        map = try CompactMap(count: count) { () throws(Failure) in (try next(), true) }
    }

    /// Whether both sets use one storage (see `CompactMap.sharesStorage`).
    func sharesStorage(with other: SegmentSet) -> Bool { map.sharesStorage(with: other.map) }

    public var count: Int { map.count }
    public var isEmpty: Bool { map.isEmpty }

    public func contains(_ name: String) -> Bool { map.contains(name) }

    public mutating func insert(_ name: String) {
        if !map.contains(name) { map.updateValue(true, forKey: name) }
    }

    public mutating func remove(_ name: String) {
        map.removeValue(forKey: name)
    }

    public mutating func removeAll() { map.removeAll() }

    /// Members in byte order, for stable output.
    public func sorted() -> [String] { map.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) } }

    /// Members in no particular order.
    public func makeIterator() -> IndexingIterator<[String]> { map.keys.makeIterator() }

    /// Same members, whatever the order they were added in.
    public static func == (lhs: SegmentSet, rhs: SegmentSet) -> Bool { lhs.map == rhs.map }
}
