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
