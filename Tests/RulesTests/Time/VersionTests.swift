import Rules
import TestRandom
import Testing

/// `Version` keeps up to four components inline; these pin it to the plain reading of its rule (numeric per dot
/// component, zero-padded, at most nine digits a component, 64 bytes) on random strings, long ones included.
@Suite struct VersionTests {
    /// The rule as an array of components, trailing zeros dropped: what `Version` must agree with.
    static func reference(_ text: String) -> [Int]? {
        guard text.utf8.count <= Version.maxBytes else { return nil }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        var components: [Int] = []
        for part in parts {
            guard !part.isEmpty, part.utf8.count <= 9, part.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
            components.append(Int(part)!)
        }
        while components.count > 1, components.last == 0 { components.removeLast() }
        return components
    }

    static func less(_ a: [Int], _ b: [Int]) -> Bool {
        for index in 0..<max(a.count, b.count) {
            let left = index < a.count ? a[index] : 0, right = index < b.count ? b[index] : 0
            if left != right { return left < right }
        }
        return false
    }

    @Test(arguments: [
        ("1.2", [1, 2]), ("1.2.0", [1, 2]), ("0", [0]), ("0.0.0", [0]), ("1.10", [1, 10]), ("999999999.1", [999_999_999, 1]),
        ("1.2.3.4.5.0.6", [1, 2, 3, 4, 5, 0, 6]), ("1.2.3.4.5.0.0", [1, 2, 3, 4, 5]), ("1.0.0.0.0.0", [1])
    ])
    func parse_keepsNumericComponentsWithoutTrailingZeros(text: String, components: [Int]) {
        #expect(Version(text)?.components == components)
        #expect(Version(text)?.description == components.map(String.init).joined(separator: "."))
    }

    @Test(arguments: ["", ".", "1.", ".1", "1..2", "1.a", "1.2-beta", "1234567890", " 1", "١.٢", String(repeating: "1.", count: 32) + "1"])
    func parse_refusesWhatIsNotAVersion(text: String) {
        #expect(Version(text) == nil)
        #expect(!Version.isValid(text))
    }

    @Test(arguments: [UInt64(1), 2, 3])
    func randomVersions_agreeWithTheArrayReading(seed: UInt64) {
        var random = SplitMix(seed: seed)
        let pieces = ["0", "1", "2", "9", "10", "00", "999999999", "1000000000", "", "x"]
        func text() -> String {
            (0..<(1 + random.next(upTo: 7))).map { _ in pieces[random.next(upTo: pieces.count)] }.joined(separator: ".")
        }
        for _ in 0..<3_000 {
            let (a, b) = (text(), text())
            #expect(Version(a)?.components == Self.reference(a), "\(a)")
            #expect(Version.isValid(a) == (Self.reference(a) != nil), "\(a)")
            guard let left = Version(a), let right = Version(b), let x = Self.reference(a), let y = Self.reference(b) else { continue }
            #expect((left == right) == (x == y), "\(a) == \(b)")
            #expect((left < right) == Self.less(x, y), "\(a) < \(b)")
            if left == right { #expect(left.hashValue == right.hashValue) }
        }
    }
}
