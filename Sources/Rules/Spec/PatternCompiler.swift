/// Parses a pattern's source into a `PatternProgram` (docs/rules.md, `matches`): JavaScript's syntax without the
/// constructs no linear-time matcher can run (backreferences, lookaround) — literals and escapes, `.`, classes
/// with ranges and `\d \w \s \D \W \S`, `^ $ \b \B`, groups (`(…)`, `(?:…)`, `(?<name>…)`), `|`, and the
/// quantifiers `* + ? {n} {n,} {n,m}` (lazy or not: a yes/no match does not tell them apart), with `(?i)` at the
/// start for a case-insensitive match.
///
/// Recursive descent over the scalars into a tree, then the tree into instructions (Thompson's construction). A
/// repetition is its body emitted once per count, so counts and the program's size are bounded: a small pattern
/// cannot compile into a huge one.
struct PatternCompiler {
    enum Failure: Error, Equatable {
        case syntax(String)
        case unsupported(String)
        case tooLarge
    }

    /// Instructions a program may have: matching costs at most the text's length times this many steps.
    static let maxInstructions = 2_000
    /// The largest count a `{n,m}` may name.
    static let maxCount = 1_000
    /// How deep groups may nest (the parser recurses per group).
    static let maxNesting = 64

    /// The parsed pattern, before it becomes instructions.
    private indirect enum Node {
        case instruction(PatternProgram.Instruction)
        case sequence([Node])
        case alternation([Node])
        case repetition(Node, low: Int, high: Int?)
    }

    private let scalars: [Unicode.Scalar]
    private let ignoresCase: Bool
    private var position = 0
    private var nesting = 0
    /// What is left of `PatternScalarSet.closureLimit` for this pattern's classes.
    private var closureBudget = PatternScalarSet.closureLimit

    static func compile(_ source: String) throws(Failure) -> PatternProgram {
        var scalars = Array(source.unicodeScalars)
        var ignoresCase = false
        if scalars.starts(with: "(?i)".unicodeScalars) {
            ignoresCase = true
            scalars.removeFirst(4)
        }
        var compiler = PatternCompiler(scalars: scalars, ignoresCase: ignoresCase)
        let tree = try compiler.alternation()
        guard compiler.position == scalars.count else { throw .syntax("unmatched ')'") }
        var emitter = Emitter()
        try emitter.emit(tree)
        try emitter.append(.match)
        return PatternProgram(instructions: emitter.program, ignoresCase: ignoresCase)
    }

    private init(scalars: [Unicode.Scalar], ignoresCase: Bool) {
        self.scalars = scalars
        self.ignoresCase = ignoresCase
    }

    private var peek: Unicode.Scalar? { position < scalars.count ? scalars[position] : nil }

    // MARK: - Instructions (Thompson's construction)

    /// The program being emitted, and the nodes visited so far: an empty body repeated (`((?:){1000}){1000}`)
    /// emits nothing yet would be walked a million times.
    private struct Emitter {
        var program: [PatternProgram.Instruction] = []
        var visits = 0
        /// The program's size against `maxInstructions`: an instruction each, a class by its ranges.
        var size = 0

        mutating func append(_ instruction: PatternProgram.Instruction) throws(Failure) {
            if case .set(let set) = instruction { size += set.cost } else { size += 1 }
            guard size <= maxInstructions else { throw .tooLarge }
            program.append(instruction)
        }

        mutating func emit(_ node: Node) throws(Failure) {
            visits += 1
            guard visits <= 16 * maxInstructions else { throw .tooLarge }
            switch node {
            case .instruction(let instruction):
                try append(instruction)
            case .sequence(let nodes):
                for node in nodes { try emit(node) }
            case .alternation(let branches):
                // split(branch, next split) … ; each branch but the last jumps past the rest.
                var jumps: [Int] = []
                for (index, branch) in branches.enumerated() {
                    guard index < branches.count - 1 else {
                        try emit(branch)
                        break
                    }
                    let split = program.count
                    try append(.split(split + 1, 0))
                    try emit(branch)
                    jumps.append(program.count)
                    try append(.jump(0))
                    program[split] = .split(split + 1, program.count)
                }
                for jump in jumps { program[jump] = .jump(program.count) }
            case .repetition(let body, let low, let high):
                for _ in 0..<low { try emit(body) }
                guard let high else {
                    // loop: split(body, out); body; jump loop
                    let loop = program.count
                    try append(.split(loop + 1, 0))
                    try emit(body)
                    try append(.jump(loop))
                    program[loop] = .split(loop + 1, program.count)
                    return
                }
                var splits: [Int] = []
                for _ in low..<high {
                    splits.append(program.count)
                    try append(.split(program.count + 1, 0))
                    try emit(body)
                }
                for split in splits { program[split] = .split(split + 1, program.count) }
            }
        }
    }

    // MARK: - Parsing

    /// `a|b|…`.
    private mutating func alternation() throws(Failure) -> Node {
        var branches = [try sequence()]
        while peek == "|" {
            position += 1
            branches.append(try sequence())
        }
        return branches.count == 1 ? branches[0] : .alternation(branches)
    }

    private mutating func sequence() throws(Failure) -> Node {
        var nodes: [Node] = []
        while let next = peek, next != "|", next != ")" {
            nodes.append(try repetition())
        }
        return .sequence(nodes)
    }

    /// An atom and its quantifier, if any (a trailing `?` makes it lazy, which a yes/no match ignores).
    private mutating func repetition() throws(Failure) -> Node {
        let atom = try atom()
        guard let (low, high) = try quantifier() else { return atom }
        if peek == "?" { position += 1 }
        return .repetition(atom, low: low, high: high)
    }

    private mutating func quantifier() throws(Failure) -> (Int, Int?)? {
        guard let next = peek else { return nil }
        switch next {
        case "*":
            position += 1
            return (0, nil)
        case "+":
            position += 1
            return (1, nil)
        case "?":
            position += 1
            return (0, 1)
        case "{":
            // JavaScript reads a `{` that starts no valid count as itself (Annex B); a count it does start is checked.
            guard let (low, high, end) = braceCount(at: position) else { return nil }
            position = end
            guard low <= Self.maxCount, (high ?? low) <= Self.maxCount else { throw .tooLarge }
            if let high, high < low { throw .syntax("numbers out of order in {} quantifier") }
            return (low, high)
        default:
            return nil
        }
    }

    /// `{n}`, `{n,}` or `{n,m}` with its `{` at `start`: the counts and the index after `}`.
    private func braceCount(at start: Int) -> (Int, Int?, Int)? {
        var index = start + 1
        func number() -> Int? {
            var value: Int?
            while index < scalars.count, let digit = Int(String(scalars[index])), ("0"..."9").contains(scalars[index]) {
                value = min((value ?? 0) * 10 + digit, Int(Int32.max))
                index += 1
            }
            return value
        }
        guard let low = number() else { return nil }
        var high: Int? = low
        if index < scalars.count, scalars[index] == "," {
            index += 1
            high = number()
        }
        guard index < scalars.count, scalars[index] == "}" else { return nil }
        return (low, high, index + 1)
    }

    private mutating func atom() throws(Failure) -> Node {
        guard let scalar = peek else { throw .syntax("pattern ends early") }
        position += 1
        switch scalar {
        case "(": return try group()
        case ")": throw .syntax("unmatched ')'")
        case "[": return .instruction(.set(try characterClass()))
        case ".": return .instruction(.any)
        case "^": return .instruction(.textStart)
        case "$": return .instruction(.textEnd)
        case "*", "+", "?": throw .syntax("nothing to repeat")
        case "{":
            if braceCount(at: position - 1) != nil { throw .syntax("nothing to repeat") }
            return .instruction(.scalar(scalar))
        case "\\": return try escape()
        default: return .instruction(.scalar(scalar))
        }
    }

    private mutating func group() throws(Failure) -> Node {
        if peek == "?" {
            let rest = scalars[position...]
            if rest.starts(with: "?:".unicodeScalars) {
                position += 2
            } else if rest.starts(with: "?<".unicodeScalars), position + 2 < scalars.count, scalars[position + 2] != "=",
                scalars[position + 2] != "!"
            {
                // A named group: its name is skipped (nothing is captured).
                guard let close = scalars[position...].firstIndex(of: ">") else { throw .syntax("unterminated group name") }
                position = close + 1
            } else {
                throw .unsupported("lookaround and inline flags other than a leading (?i)")
            }
        }
        nesting += 1
        guard nesting <= Self.maxNesting else { throw .tooLarge }
        let inner = try alternation()
        nesting -= 1
        guard peek == ")" else { throw .syntax("unterminated group") }
        position += 1
        return inner
    }

    private mutating func escape() throws(Failure) -> Node {
        guard let scalar = peek else { throw .syntax("\\ at end of pattern") }
        position += 1
        switch scalar {
        case "d", "D": return .instruction(.set(PatternScalarSet(.digit, negated: scalar == "D")))
        case "w", "W": return .instruction(.set(PatternScalarSet(.word, negated: scalar == "W")))
        case "s", "S": return .instruction(.set(PatternScalarSet(.space, negated: scalar == "S")))
        case "b", "B": return .instruction(.wordBoundary(scalar == "b"))
        case "1"..."9", "k": throw .unsupported("backreferences")
        default: return .instruction(.scalar(try escapedScalar(scalar)))
        }
    }

    /// The scalar an escape other than a class names: `\n`, `\t`, `\xHH`, `\uHHHH`, `\u{…}`, or the character
    /// itself (`\.`, `\\`, …).
    private mutating func escapedScalar(_ scalar: Unicode.Scalar) throws(Failure) -> Unicode.Scalar {
        switch scalar {
        case "n": return "\n"
        case "r": return "\r"
        case "t": return "\t"
        case "f": return "\u{0C}"
        case "v": return "\u{0B}"
        case "0": return "\u{0}"
        case "x": return try hexScalar(digits: 2)
        case "u":
            if peek == "{" {
                guard let close = scalars[position...].firstIndex(of: "}") else { throw .syntax("unterminated \\u{…}") }
                let hex = scalars[(position + 1)..<close]
                let digits = String(String.UnicodeScalarView(hex.drop { $0 == "0" }))
                guard !hex.isEmpty, hex.allSatisfy(\.properties.isASCIIHexDigit), digits.count <= 6,
                    let value = digits.isEmpty ? 0 : UInt32(digits, radix: 16), let result = Unicode.Scalar(value)
                else {
                    throw .syntax("invalid \\u{…} escape")
                }
                position = close + 1
                return result
            }
            return try utf16Escape()
        case "p", "P": throw .unsupported("Unicode property classes")
        default:
            // Letters and digits with no meaning are errors in JavaScript's `u` mode; punctuation is itself.
            if scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) { throw .syntax("unknown escape \\\(scalar)") }
            return scalar
        }
    }

    private mutating func hexScalar(digits: Int) throws(Failure) -> Unicode.Scalar {
        guard let scalar = Unicode.Scalar(try hexValue(digits: digits)) else { throw .syntax("invalid hexadecimal escape") }
        return scalar
    }

    /// `\uHHHH` after its `u`; a high surrogate followed by `\u` and a low one is the pair's scalar, as in
    /// JavaScript (`\uD83D\uDE00` is 😀).
    private mutating func utf16Escape() throws(Failure) -> Unicode.Scalar {
        let first = try hexValue(digits: 4)
        if (0xD800...0xDBFF).contains(first), position + 6 <= scalars.count, scalars[position] == "\\", scalars[position + 1] == "u" {
            let resume = position
            position += 2
            if let second = try? hexValue(digits: 4), (0xDC00...0xDFFF).contains(second),
                let pair = Unicode.Scalar(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))
            {
                return pair
            }
            position = resume
        }
        guard let scalar = Unicode.Scalar(first) else { throw .syntax("a lone surrogate escape matches nothing in text") }
        return scalar
    }

    private mutating func hexValue(digits: Int) throws(Failure) -> UInt32 {
        guard position + digits <= scalars.count else { throw .syntax("incomplete hexadecimal escape") }
        let hex = scalars[position..<(position + digits)]
        // Digits only: `UInt32(_:radix:)` also reads a sign, so `\x+4` was U+0004.
        guard hex.allSatisfy(\.properties.isASCIIHexDigit), let value = UInt32(String(String.UnicodeScalarView(hex)), radix: 16) else {
            throw .syntax("invalid hexadecimal escape")
        }
        position += digits
        return value
    }

    /// `[…]` after its `[`: members, ranges and shorthands, `^` first to negate.
    private mutating func characterClass() throws(Failure) -> PatternScalarSet {
        var set = PatternScalarSet(negated: peek == "^")
        if set.negated { position += 1 }
        while true {
            guard let scalar = peek else { throw .syntax("unterminated character class") }
            position += 1
            if scalar == "]" {
                set.seal(ignoringCase: ignoresCase, closureBudget: &closureBudget)
                return set
            }
            var low: Unicode.Scalar
            if scalar == "\\" {
                guard let escaped = peek else { throw .syntax("unterminated character class") }
                position += 1
                switch escaped {
                case "d", "D", "w", "W", "s", "S":
                    let shorthand: PatternScalarSet.Shorthand =
                        escaped == "d" || escaped == "D" ? .digit : escaped == "w" || escaped == "W" ? .word : .space
                    set.shorthands.append((shorthand, escaped.properties.isUppercase))
                    continue
                case "b": low = "\u{8}"
                case "-": low = "-"
                default: low = try escapedScalar(escaped)
                }
            } else {
                low = scalar
            }
            // A range `a-z`; a `-` first, last, or after a shorthand is itself.
            if peek == "-", position + 1 < scalars.count, scalars[position + 1] != "]" {
                position += 1
                guard var high = peek else { throw .syntax("unterminated character class") }
                position += 1
                if high == "\\" {
                    guard let escaped = peek else { throw .syntax("unterminated character class") }
                    position += 1
                    if "dDwWsS".unicodeScalars.contains(escaped) { throw .syntax("a range cannot end in a class") }
                    high = escaped == "b" ? "\u{8}" : escaped == "-" ? "-" : try escapedScalar(escaped)
                }
                guard low.value <= high.value else { throw .syntax("range out of order in character class") }
                set.add(low.value...high.value)
            } else {
                set.add(low.value...low.value)
            }
        }
    }
}
