/// The id of an event on the merged global stream: the last id seen from every member, `0-123.1-456-2.2-789`
/// (member, `-`, that member's own event id, which may itself be `seq-index`; members joined by `.`). Members not
/// heard from yet are left out. `Last-Event-ID` with one resumes each member exactly where it was.
public struct VectorEventID: Sendable, Equatable, CustomStringConvertible {
    public private(set) var positions: [Int: EventID]

    public init(positions: [Int: EventID] = [:]) {
        self.positions = positions
    }

    /// `nil` unless every component is `member-id` with a member below `memberCount`, each member at most once.
    public init?(text: String, memberCount: Int) {
        var positions: [Int: EventID] = [:]
        guard !text.isEmpty else { return nil }
        for component in text.split(separator: ".", omittingEmptySubsequences: false) {
            let parts = component.split(separator: "-", maxSplits: 1)
            guard parts.count == 2, let member = Int(parts[0]), (0..<memberCount).contains(member), positions[member] == nil,
                let id = EventID(text: String(parts[1]))
            else { return nil }
            positions[member] = id
        }
        self.positions = positions
    }

    public mutating func advance(_ member: Int, to id: EventID) { positions[member] = id }

    public var description: String {
        positions.sorted { $0.key < $1.key }.map { "\($0.key)-\($0.value)" }.joined(separator: ".")
    }
}
