/// The flags a write can reach (`RuleSet.flagsAffected(from:to:)`), in declaration order: the index's set of
/// positions read against the rule set's flags as it is walked. An array of the flags was an allocation on every
/// write that reached one, and each write that changes something a flag reads does.
public struct AffectedFlags: Sequence, Sendable {
    private let reached: FlagBits
    /// The rule set's flags in declaration order (shared storage: one retain, no copy).
    private let flags: [Flag]

    init(reached: FlagBits, flags: [Flag]) {
        self.reached = reached
        self.flags = flags
    }

    public var isEmpty: Bool { reached.isEmpty }

    public var underestimatedCount: Int { reached.count }

    public func makeIterator() -> Iterator { Iterator(affected: self, position: reached.first) }

    public struct Iterator: IteratorProtocol {
        let affected: AffectedFlags
        var position: Int?

        public mutating func next() -> Flag? {
            guard let current = position else { return nil }
            position = affected.reached.next(after: current)
            return affected.flags[current]
        }
    }
}
