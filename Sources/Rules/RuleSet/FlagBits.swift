/// A set of one rule set's flags, one bit per flag at its position in declaration order: what a write's change can
/// reach, united and walked with word operations instead of hashing flag keys.
///
/// The first 64 flags live in a word of the value itself and only the rest in an array: a set of most rule sets'
/// flags allocates nothing, where an array for every set cost an allocation and a free on each write.
struct FlagBits: Sendable, Equatable {
    /// Positions 0..<64.
    private var low: UInt64 = 0
    /// Positions from 64 on, 64 a word; `nil` for a rule set of at most 64 flags. Not an empty array: a set
    /// passed `inout` had its array made unique on entry to the caller's loop (the check hoisted out of
    /// `formUnion`), and the shared empty array never is, so each write allocated a copy of nothing.
    private var high: [UInt64]?

    /// The empty set for a rule set of `count` flags.
    init(count: Int) {
        high = count > 64 ? Array(repeating: 0, count: (count - 1) / 64) : nil
    }

    var isEmpty: Bool { low == 0 && (high?.allSatisfy { $0 == 0 } ?? true) }

    mutating func insert(_ position: Int) {
        let bit: UInt64 = 1 << UInt64(position & 63)
        if position < 64 { low |= bit } else { high![(position >> 6) - 1] |= bit }
    }

    /// Both sets come from one rule set, so they have the same number of words.
    mutating func formUnion(_ other: FlagBits) {
        low |= other.low
        guard high != nil, let words = other.high else { return }
        for index in words.indices { high![index] |= words[index] }
    }

    func contains(_ position: Int) -> Bool {
        guard position >= 0, position >> 6 <= highCount else { return false }
        return word(position >> 6) & (1 << UInt64(position & 63)) != 0
    }

    /// How many members.
    var count: Int { (high ?? []).reduce(low.nonzeroBitCount) { $0 + $1.nonzeroBitCount } }

    private var highCount: Int { high?.count ?? 0 }

    /// The lowest member's position.
    var first: Int? { next(from: 0) }

    /// The lowest member's position after `position`.
    func next(after position: Int) -> Int? { next(from: position + 1) }

    /// Word `index` of the whole set: `low`, then `high`'s.
    private func word(_ index: Int) -> UInt64 { index == 0 ? low : high![index - 1] }

    private func next(from start: Int) -> Int? {
        var index = start >> 6
        guard index <= highCount else { return nil }
        var word = word(index) & (~0 << UInt64(start & 63))
        while word == 0 {
            index += 1
            guard index <= highCount else { return nil }
            word = self.word(index)
        }
        return index << 6 + word.trailingZeroBitCount
    }

    /// Each member's position, ascending: declaration order.
    func forEach(_ body: (Int) -> Void) {
        for index in 0...highCount {
            var rest = word(index)
            while rest != 0 {
                body(index << 6 + rest.trailingZeroBitCount)
                rest &= rest - 1
            }
        }
    }
}
