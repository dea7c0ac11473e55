/// A character class of a pattern: ranges of scalars and the shorthand classes it names, possibly negated.
///
/// `sealed` sorts and merges the ranges once the class is parsed, so a scalar is looked up by binary search: a class
/// of two thousand members scanned one by one at every step of every thread made one evaluation of a 16 KB
/// attribute take 15 s (found in review).
struct PatternScalarSet: Sendable {
    enum Shorthand: Sendable {
        case digit, word, space
    }

    private(set) var ranges: [ClosedRange<UInt32>] = []
    /// Shorthands inside the class (`[\d_]`), each possibly negated (`[\D]`).
    var shorthands: [(Shorthand, negated: Bool)] = []
    var negated = false

    init(negated: Bool = false) {
        self.negated = negated
    }

    init(_ shorthand: Shorthand, negated: Bool) {
        shorthands = [(shorthand, negated)]
    }

    mutating func add(_ range: ClosedRange<UInt32>) {
        ranges.append(range)
    }

    /// The members' case variants added (for `(?i)`: a member matches a scalar with the same simple lower-case
    /// mapping), then the ranges sorted and merged. A class is closed member by member while `closureBudget` (the
    /// pattern's, shared by its classes, so many wide classes cannot make one pattern slow to compile) lasts;
    /// past it, only ASCII letters are closed, by range (a class that wide holds most cased letters in both forms
    /// already).
    mutating func seal(ignoringCase: Bool, closureBudget: inout Int) {
        if ignoringCase {
            var added: [ClosedRange<UInt32>] = []
            let total = ranges.reduce(0) { $0 + Int($1.upperBound - $1.lowerBound) + 1 }
            let memberByMember = total <= closureBudget
            if memberByMember { closureBudget -= total }
            for range in ranges {
                if memberByMember {
                    for value in range {
                        guard let scalar = Unicode.Scalar(value) else { continue }
                        for variant in Self.caseVariants(scalar) { added.append(variant.value...variant.value) }
                    }
                } else {
                    let upper = range.clamped(to: 0x41...0x5A), lower = range.clamped(to: 0x61...0x7A)
                    if !upper.isEmpty, upper.lowerBound >= 0x41 { added.append((upper.lowerBound + 0x20)...(upper.upperBound + 0x20)) }
                    if !lower.isEmpty, lower.lowerBound >= 0x61 { added.append((lower.lowerBound - 0x20)...(lower.upperBound - 0x20)) }
                }
            }
            ranges += added
        }
        ranges.sort { $0.lowerBound < $1.lowerBound }
        var merged: [ClosedRange<UInt32>] = []
        for range in ranges {
            if let last = merged.last, range.lowerBound <= last.upperBound &+ 1 {
                merged[merged.count - 1] = last.lowerBound...max(last.upperBound, range.upperBound)
            } else {
                merged.append(range)
            }
        }
        ranges = merged
    }

    /// Scalars a pattern's classes may close over one by one under `(?i)`, all classes together.
    static let closureLimit = 4_096

    /// What the class costs against `PatternCompiler.maxInstructions`: a lookup is a binary search, but a class of
    /// many ranges is still memory per instruction.
    var cost: Int { 1 + ranges.count / 64 }

    func contains(_ scalar: Unicode.Scalar, ignoringCase: Bool) -> Bool {
        var found = holds(scalar)
        if !found, ignoringCase { found = holds(Self.fold(scalar)) }
        return found != negated
    }

    private func holds(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        var low = 0
        var high = ranges.count
        while low < high {
            let middle = (low + high) / 2
            if ranges[middle].upperBound < value {
                low = middle + 1
            } else {
                high = middle
            }
        }
        if low < ranges.count, ranges[low].contains(value) { return true }
        for (shorthand, negated) in shorthands where Self.isIn(shorthand, scalar) != negated { return true }
        return false
    }

    static func isIn(_ shorthand: Shorthand, _ scalar: Unicode.Scalar) -> Bool {
        switch shorthand {
        case .digit: return (0x30...0x39).contains(scalar.value)
        case .word: return PatternProgram.isWord(scalar)
        // JavaScript's `\s`: its white space and line terminators, which are Unicode's White_Space without U+0085
        // (NEL), plus U+FEFF.
        case .space: return (scalar.properties.isWhitespace && scalar.value != 0x85) || scalar.value == 0xFEFF
        }
    }

    /// Simple lower-case mapping: one scalar for one scalar (a mapping to several keeps the scalar). Not quite
    /// JavaScript's case folding: the few letters with two lower-case forms (σ and ς, μ and µ) stay apart.
    static func fold(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
        if scalar.isASCII {
            return (0x41...0x5A).contains(scalar.value) ? Unicode.Scalar(scalar.value + 0x20)! : scalar
        }
        let lower = scalar.properties.lowercaseMapping.unicodeScalars
        return lower.count == 1 ? lower.first! : scalar
    }

    /// The scalar's lower- and upper-case forms that are one scalar each.
    private static func caseVariants(_ scalar: Unicode.Scalar) -> [Unicode.Scalar] {
        var variants = [fold(scalar)]
        let upper = scalar.properties.uppercaseMapping.unicodeScalars
        if upper.count == 1, let only = upper.first, fold(only) == fold(scalar) { variants.append(only) }
        return variants
    }
}
