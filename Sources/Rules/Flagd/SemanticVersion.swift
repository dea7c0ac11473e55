/// A semantic version as flagd reads them (semver.org 2.0.0 with flagd's allowances): an optional leading `v`/`V`,
/// `major[.minor[.patch]]` where the short forms mean `.0` and take no pre-release or build, numbers without leading
/// zeros, dot-separated pre-release identifiers of `[0-9A-Za-z-]` (numeric ones without leading zeros) and build
/// metadata, which comparisons ignore. Numbers compare by value at any length.
struct SemanticVersion: Comparable {
    let major: Substring
    let minor: Substring
    let patch: Substring
    let prerelease: [Substring]

    init?(_ value: JSONValue) {
        var text: Substring
        switch value {
        case .string(let string): text = string[...]
        case .number(let number): text = JSONLogic.string(.number(number))[...]
        default: return nil
        }
        if text.first == "v" || text.first == "V" { text = text.dropFirst() }
        var build: [Substring] = []
        if let plus = text.firstIndex(of: "+") {
            build = text[text.index(after: plus)...].split(separator: ".", omittingEmptySubsequences: false)
            text = text[..<plus]
        }
        var prerelease: [Substring] = []
        if let dash = text.firstIndex(of: "-") {
            prerelease = text[text.index(after: dash)...].split(separator: ".", omittingEmptySubsequences: false)
            text = text[..<dash]
        }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count), parts.allSatisfy(Self.isNumber) else { return nil }
        // semver.org has no short forms; flagd accepts `1` and `1.2` only bare.
        guard parts.count == 3 || (prerelease.isEmpty && build.isEmpty && !text.isEmpty) else { return nil }
        guard prerelease.allSatisfy({ Self.isIdentifier($0) && (!Self.isDigits($0) || Self.isNumber($0)) }),
            build.allSatisfy(Self.isIdentifier)
        else { return nil }
        major = parts[0]
        minor = parts.count > 1 ? parts[1] : "0"
        patch = parts.count > 2 ? parts[2] : "0"
        self.prerelease = prerelease
    }

    private static func isDigits(_ part: Substring) -> Bool {
        !part.isEmpty && part.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }

    /// Digits without a leading zero (`0` itself allowed).
    private static func isNumber(_ part: Substring) -> Bool {
        isDigits(part) && (part.utf8.count == 1 || part.utf8.first != UInt8(ascii: "0"))
    }

    private static func isIdentifier(_ part: Substring) -> Bool {
        !part.isEmpty
            && part.utf8.allSatisfy { byte in
                (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
                    || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")) || byte == UInt8(ascii: "-")
            }
    }

    /// Numbers without leading zeros order by length, then digit by digit: no size limit, no conversion.
    private static func compareNumbers(_ a: Substring, _ b: Substring) -> Int {
        if a.utf8.count != b.utf8.count { return a.utf8.count < b.utf8.count ? -1 : 1 }
        if a.utf8.elementsEqual(b.utf8) { return 0 }
        return a.utf8.lexicographicallyPrecedes(b.utf8) ? -1 : 1
    }

    /// semver.org §11: numeric identifiers by value and below alphanumeric ones, which order by ASCII.
    private static func compareIdentifiers(_ a: Substring, _ b: Substring) -> Int {
        switch (isDigits(a), isDigits(b)) {
        case (true, true): return compareNumbers(a, b)
        case (true, false): return -1
        case (false, true): return 1
        default:
            if a.utf8.elementsEqual(b.utf8) { return 0 }
            return a.utf8.lexicographicallyPrecedes(b.utf8) ? -1 : 1
        }
    }

    static func compare(_ lhs: SemanticVersion, _ rhs: SemanticVersion) -> Int {
        for (a, b) in [(lhs.major, rhs.major), (lhs.minor, rhs.minor), (lhs.patch, rhs.patch)] {
            let order = compareNumbers(a, b)
            if order != 0 { return order }
        }
        // A pre-release orders before its release.
        switch (lhs.prerelease.isEmpty, rhs.prerelease.isEmpty) {
        case (true, true): return 0
        case (true, false): return 1
        case (false, true): return -1
        default: break
        }
        for (a, b) in zip(lhs.prerelease, rhs.prerelease) {
            let order = compareIdentifiers(a, b)
            if order != 0 { return order }
        }
        return lhs.prerelease.count == rhs.prerelease.count ? 0 : (lhs.prerelease.count < rhs.prerelease.count ? -1 : 1)
    }

    static func < (lhs: SemanticVersion, rhs: SemanticVersion) -> Bool { compare(lhs, rhs) < 0 }

    static func == (lhs: SemanticVersion, rhs: SemanticVersion) -> Bool { compare(lhs, rhs) == 0 }
}
