/// A set of one rule set's flags, one bit per flag at its position in declaration order: what a write's change can
/// reach, united and walked with word operations instead of hashing flag keys.
struct FlagBits: Sendable, Equatable {
    private var words: [UInt64]

    /// The empty set for a rule set of `count` flags.
    init(count: Int) {
        words = Array(repeating: 0, count: (count + 63) / 64)
    }

    var isEmpty: Bool { words.allSatisfy { $0 == 0 } }

    mutating func insert(_ position: Int) {
        words[position >> 6] |= 1 << UInt64(position & 63)
    }

    /// Both sets come from one rule set, so they have the same number of words.
    mutating func formUnion(_ other: FlagBits) {
        for index in words.indices { words[index] |= other.words[index] }
    }

    func contains(_ position: Int) -> Bool {
        position >= 0 && position >> 6 < words.count && words[position >> 6] & (1 << UInt64(position & 63)) != 0
    }

    /// How many members.
    var count: Int { words.reduce(0) { $0 + $1.nonzeroBitCount } }

    /// The lowest member's position.
    var first: Int? { next(from: 0) }

    /// The lowest member's position after `position`.
    func next(after position: Int) -> Int? { next(from: position + 1) }

    private func next(from start: Int) -> Int? {
        var index = start >> 6
        guard index < words.count else { return nil }
        var word = words[index] & (~0 << UInt64(start & 63))
        while word == 0 {
            index += 1
            guard index < words.count else { return nil }
            word = words[index]
        }
        return index << 6 + word.trailingZeroBitCount
    }

    /// Each member's position, ascending: declaration order.
    func forEach(_ body: (Int) -> Void) {
        for (index, word) in words.enumerated() {
            var rest = word
            while rest != 0 {
                body(index << 6 + rest.trailingZeroBitCount)
                rest &= rest - 1
            }
        }
    }
}
