import Testing

@testable import Rules

/// The flag set a write's change reaches: its first 64 flags inline, the rest in words after them. Checked at the
/// word edges against a plain `Set<Int>`.
@Suite struct FlagBitsTests {
    @Test(arguments: [1, 63, 64, 65, 128, 129, 200])
    func members_atTheWordEdges_matchASetOfPositions(flagCount: Int) {
        let edges = [0, 1, 62, 63, 64, 65, 127, 128, 129, 199].filter { $0 < flagCount }
        var bits = FlagBits(count: flagCount)
        #expect(bits.isEmpty && bits.first == nil && bits.count == 0)
        var expected = Set<Int>()
        for (step, position) in edges.enumerated() where step % 2 == 0 {
            bits.insert(position)
            expected.insert(position)
        }
        var other = FlagBits(count: flagCount)
        for (step, position) in edges.enumerated() where step % 3 == 1 {
            other.insert(position)
            expected.insert(position)
        }
        bits.formUnion(other)
        #expect(!bits.isEmpty)
        #expect(bits.count == expected.count)
        for position in -1...flagCount + 64 { #expect(bits.contains(position) == expected.contains(position), "\(position)") }
        var walked: [Int] = []
        var position = bits.first
        while let current = position {
            walked.append(current)
            position = bits.next(after: current)
        }
        #expect(walked == expected.sorted())
        var visited: [Int] = []
        bits.forEach { visited.append($0) }
        #expect(visited == expected.sorted())
        var same = FlagBits(count: flagCount)
        for member in expected { same.insert(member) }
        #expect(same == bits)
    }

    /// Members only past the first 64, or only within them: emptiness, the first member, the walk from a
    /// non-member and from past the end, and equality that sees every word.
    @Test func membersOnOneSideOfTheInlineWord_areFoundAndCompared() {
        var high = FlagBits(count: 200)
        high.insert(130)
        high.insert(64)
        #expect(!high.isEmpty)
        #expect(high.first == 64 && high.count == 2)
        #expect(high.next(after: 0) == 64 && high.next(after: 65) == 130 && high.next(after: 130) == nil)
        #expect(high.next(after: 500) == nil)
        var other = FlagBits(count: 200)
        other.insert(64)
        #expect(other != high)
        other.insert(131)
        #expect(other != high)
        var low = FlagBits(count: 200)
        low.insert(5)
        #expect(low.first == 5 && low.next(after: 5) == nil && low != FlagBits(count: 200))
        let none = FlagBits(count: 0)
        #expect(none.isEmpty && none.first == nil && none.count == 0 && !none.contains(0))
    }
}
