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
}
