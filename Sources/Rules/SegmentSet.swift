/// A user's segments: a sorted array, which is smaller than a `Set` for the few segments a user belongs to.
public struct SegmentSet: Sendable, Equatable, Sequence, ExpressibleByArrayLiteral {
    public private(set) var members: [String] = []

    public init() {}

    public init(arrayLiteral elements: String...) {
        for element in elements { insert(element) }
    }

    public var count: Int { members.count }
    public var isEmpty: Bool { members.isEmpty }

    public func contains(_ name: String) -> Bool {
        for member in members where member == name { return true }
        return false
    }

    public mutating func insert(_ name: String) {
        guard !contains(name) else { return }
        let position = members.firstIndex { $0 > name } ?? members.count
        members.insert(name, at: position)
    }

    public mutating func remove(_ name: String) {
        members.removeAll { $0 == name }
    }

    public mutating func removeAll() { members = [] }

    public func sorted() -> [String] { members }

    public func makeIterator() -> IndexingIterator<[String]> { members.makeIterator() }
}
