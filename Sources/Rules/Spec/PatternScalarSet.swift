/// A character class of a pattern: ranges of scalars and the shorthand classes it names, possibly negated.
struct PatternScalarSet: Sendable {
    enum Shorthand: Sendable {
        case digit, word, space
    }

    var ranges: [ClosedRange<UInt32>] = []
    /// Shorthands inside the class (`[\d_]`), each possibly negated (`[\D]`).
    var shorthands: [(Shorthand, negated: Bool)] = []
    var negated = false

    init(negated: Bool = false) {
        self.negated = negated
    }

    init(_ shorthand: Shorthand, negated: Bool) {
        shorthands = [(shorthand, negated)]
    }

    func contains(_ scalar: Unicode.Scalar, ignoringCase: Bool) -> Bool {
        var found = holds(scalar)
        if !found, ignoringCase {
            found = holds(Self.fold(scalar)) || Self.upper(scalar).map(holds) == true
        }
        return found != negated
    }

    private func holds(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        for range in ranges where range.contains(value) { return true }
        for (shorthand, negated) in shorthands where Self.isIn(shorthand, scalar) != negated { return true }
        return false
    }

    static func isIn(_ shorthand: Shorthand, _ scalar: Unicode.Scalar) -> Bool {
        switch shorthand {
        case .digit: return (0x30...0x39).contains(scalar.value)
        case .word: return PatternProgram.isWord(scalar)
        // JavaScript's `\s`: the white space and line terminators of ECMAScript, which are Unicode's White_Space
        // plus U+FEFF.
        case .space: return scalar.properties.isWhitespace || scalar.value == 0xFEFF
        }
    }

    /// Simple case folding to lower case: one scalar for one scalar (a mapping to several keeps the scalar).
    static func fold(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
        if scalar.isASCII {
            return (0x41...0x5A).contains(scalar.value) ? Unicode.Scalar(scalar.value + 0x20)! : scalar
        }
        let lower = scalar.properties.lowercaseMapping.unicodeScalars
        return lower.count == 1 ? lower.first! : scalar
    }

    private static func upper(_ scalar: Unicode.Scalar) -> Unicode.Scalar? {
        let upper = scalar.properties.uppercaseMapping.unicodeScalars
        return upper.count == 1 ? upper.first : nil
    }
}
