/// A compiled regular expression as a Thompson NFA, run by a Pike VM (every thread in step, one pass over the text):
/// the time to match is bounded by the text's length times the program's, whatever the pattern. Swift's `Regex`
/// backtracks, and `^(a+)+$` against thirty `a`s and a `b` never answered: a client that may only set an attribute
/// could wedge an event loop for good with the operator's own pattern.
///
/// Text is matched as Unicode scalars (JavaScript's `u` mode), not grapheme clusters.
struct PatternProgram: Sendable {
    enum Instruction: Sendable {
        /// One scalar; under `ignoresCase`, compared by simple lower-case mapping.
        case scalar(Unicode.Scalar)
        /// Any scalar but a line terminator (JavaScript's `.`).
        case any
        case set(PatternScalarSet)
        /// Threads go on at both targets; the first is preferred (irrelevant to a yes/no match).
        case split(Int, Int)
        case jump(Int)
        /// `^` and `$`: the text's start and end (no multiline mode).
        case textStart
        case textEnd
        /// `\b` (`true`) and `\B` (`false`).
        case wordBoundary(Bool)
        case match
    }

    let instructions: [Instruction]
    /// `(?i)` at the start: scalars and sets compare by simple case folding.
    let ignoresCase: Bool

    /// Whether the text contains a match (a search, like JavaScript's `RegExp.test`).
    func matches(_ text: String) -> Bool {
        let scalars = Array(text.unicodeScalars)
        var current = ThreadList(capacity: instructions.count)
        var next = ThreadList(capacity: instructions.count)
        for position in 0...scalars.count {
            // A new thread starts at every position: an unanchored search.
            if add(0, at: position, in: scalars, to: &current) { return true }
            guard position < scalars.count else { break }
            let scalar = scalars[position]
            next.clear()
            for index in 0..<current.count {
                let pc = current.pcs[index]
                let advances: Bool
                switch instructions[pc] {
                case .scalar(let expected): advances = same(scalar, expected)
                case .any: advances = !Self.isLineTerminator(scalar)
                case .set(let set): advances = set.contains(scalar, ignoringCase: ignoresCase)
                default: advances = false
                }
                if advances, add(pc + 1, at: position + 1, in: scalars, to: &next) { return true }
            }
            swap(&current, &next)
        }
        return false
    }

    /// Follows the instructions that consume nothing from `pc` and adds the threads that wait for a scalar;
    /// `true` when one reaches `match`. Iterative, with its own stack: a long chain of splits must not recurse.
    private func add(_ start: Int, at position: Int, in scalars: [Unicode.Scalar], to list: inout ThreadList) -> Bool {
        var stack = [start]
        while let pc = stack.popLast() {
            guard list.insert(pc) else { continue }
            switch instructions[pc] {
            case .match: return true
            case .jump(let target): stack.append(target)
            case .split(let first, let second):
                stack.append(second)
                stack.append(first)
            case .textStart: if position == 0 { stack.append(pc + 1) }
            case .textEnd: if position == scalars.count { stack.append(pc + 1) }
            case .wordBoundary(let wanted):
                let before = position > 0 && Self.isWord(scalars[position - 1])
                let after = position < scalars.count && Self.isWord(scalars[position])
                if (before != after) == wanted { stack.append(pc + 1) }
            case .scalar, .any, .set:
                break
            }
        }
        return false
    }

    private func same(_ scalar: Unicode.Scalar, _ expected: Unicode.Scalar) -> Bool {
        scalar == expected || (ignoresCase && PatternScalarSet.fold(scalar) == PatternScalarSet.fold(expected))
    }

    static func isLineTerminator(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0A, 0x0D, 0x2028, 0x2029: true
        default: false
        }
    }

    /// `\w`: ASCII letters, digits and `_`, as JavaScript has it.
    static func isWord(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x5F: true
        default: false
        }
    }
}

/// The threads of one step: instruction indices, each at most once (a sparse set, cleared in O(1)).
private struct ThreadList {
    private(set) var pcs: [Int]
    private(set) var count = 0
    private var slot: [Int]

    init(capacity: Int) {
        pcs = Array(repeating: 0, count: capacity)
        slot = Array(repeating: 0, count: capacity)
    }

    /// `false` when `pc` is in the list already.
    mutating func insert(_ pc: Int) -> Bool {
        let at = slot[pc]
        if at < count, pcs[at] == pc { return false }
        slot[pc] = count
        pcs[count] = pc
        count += 1
        return true
    }

    mutating func clear() { count = 0 }
}
