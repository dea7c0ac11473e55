import TestRandom
import Testing

@testable import Engine

/// Ids and keys are checked on their UTF-8 bytes; the rule is Unicode's: no scalar of category Cc (C0, DEL, C1).
@Suite struct IdentifierTests {
    static func definition(_ text: String) -> Bool {
        !text.unicodeScalars.isEmpty && !text.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }
    }

    @Test func controlCharacters_atTheEdgesOfEachRange() {
        for (text, valid) in [
            ("", false), ("a", true), ("\u{1F}", false), (" ", true), ("~", true), ("\u{7F}", false), ("\u{80}", false),
            ("\u{9F}", false), ("\u{A0}", true), ("é", true), ("user-\u{85}", false), ("\u{85}x", false), ("Ÿ", true),
            ("日本", true), ("😀", true), ("a\u{0}b", false), ("e\u{301}", true), ("user-1234", true),
            ("0123456789abcdef", true), ("01234567\u{7F}", false), ("0123456\u{1F}8", false), ("01234567user-\u{85}", false),
            ("01234567\u{C2}\u{A0}x", true), ("~~~~~~~~ ~~~~~~~", true)
        ] {
            #expect(Identifier.isValidKey(text) == valid, "\(Array(text.unicodeScalars.map(\.value)))")
        }
    }

    @Test func bytesCheck_agreesWithTheScalarRule_overRandomStrings() {
        var random = SplitMix(seed: 0x1DE7)
        let scalars: [UInt32] = [0, 0x1F, 0x20, 0x41, 0x7E, 0x7F, 0x80, 0x85, 0x9F, 0xA0, 0xBF, 0xC2, 0x100, 0x7FF, 0x800, 0xFFFD, 0x1F600]
        for _ in 0..<5_000 {
            var text = ""
            for _ in 0..<random.next(upTo: 24) { text.unicodeScalars.append(Unicode.Scalar(scalars[random.next(upTo: scalars.count)])!) }
            #expect(Identifier.isValidKey(text) == Self.definition(text), "\(Array(text.unicodeScalars.map(\.value)))")
        }
    }
}
