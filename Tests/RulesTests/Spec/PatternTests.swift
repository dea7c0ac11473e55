import Rules
import Testing

/// `attr.matches` patterns (docs/rules.md): JavaScript's `RegExp.test` on the syntax a linear-time matcher can run.
@Suite struct PatternTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let pattern: String
        let text: String
        let matches: Bool
        init(_ pattern: String, _ text: String, _ matches: Bool) {
            self.pattern = pattern
            self.text = text
            self.matches = matches
        }
        var testDescription: String { "/\(pattern)/.test(\(text.debugDescription))" }
    }

    /// Each as JavaScript answers it (`new RegExp(pattern, "u").test(text)`).
    static let cases: [Case] = [
        .init("^(FR|DE|ES)$", "DE", true),
        .init("^(FR|DE|ES)$", "DEU", false),
        .init("(FR|DE)", "xDEx", true),
        .init("abc", "xxabcxx", true),
        .init("abc", "ab", false),
        .init("", "anything", true),
        .init("^$", "", true),
        .init("^$", "a", false),
        .init("a.c", "abc", true),
        .init("a.c", "a\nc", false),
        .init("^a*$", "", true),
        .init("^a*$", "aaaa", true),
        .init("^a+$", "", false),
        .init("^ab?c$", "ac", true),
        .init("^ab?c$", "abbc", false),
        .init("^a{3}$", "aaa", true),
        .init("^a{3}$", "aa", false),
        .init("^a{2,}$", "aaaaa", true),
        .init("^a{2,3}$", "aaaa", false),
        .init("^a{2,3}?$", "aaa", true),
        .init("^(ab)+$", "ababab", true),
        .init("^(ab)+$", "ababa", false),
        .init("^(?:a|b)*c$", "abbac", true),
        .init("^(?<year>\\d{4})-\\d{2}$", "2026-12", true),
        .init("^[a-z]+@example\\.com$", "ann@example.com", true),
        .init("^[a-z]+@example\\.com$", "ann@exampleXcom", false),
        .init("^[^0-9]+$", "abc", true),
        .init("^[^0-9]+$", "ab1", false),
        .init("^[\\d_-]+$", "12_-3", true),
        .init("^[a\\-z]$", "-", true),
        .init("^[-a]$", "-", true),
        .init("^\\w+\\s\\w+$", "hello world", true),
        .init("^\\W$", "!", true),
        .init("^\\S+$", "a b", false),
        .init("\\bcat\\b", "a cat here", true),
        .init("\\bcat\\b", "concatenate", false),
        .init("\\Bcat", "concatenate", true),
        .init("^v\\d+\\.\\d+$", "v12.3", true),
        .init("^\\u00e9$", "é", true),
        .init("^\\u{1F600}$", "😀", true),
        .init("^\\x41$", "A", true),
        .init("^.$", "😀", true),
        .init("^a{,2}$", "a{,2}", true),
        .init("^x{$", "x{", true),
        .init("(?i)^hello$", "HeLLo", true),
        .init("(?i)^[a-c]+$", "ABC", true),
        .init("^hello$", "HELLO", false),
        .init("^(a|ab)(c|bcd)(d*)$", "abcd", true),
        .init("^(a*)*$", "aaaa", true),
        .init("^(a*)*b$", "aaaa", false),
        .init("^(a|a)*$", "aaaaaaaa", true),
        // Found in review against Node's RegExp in `u` mode:
        .init("(?i)[A-Z]", "ı", false),
        .init("(?i)[A-Z]", "\u{212A}", true),
        .init("(?i)[^\\u212A]", "k", false),
        .init("(?i)[\\u2126]", "ω", true),
        .init("(?i)[\\u1E9E]", "ß", true),
        .init("^\\s$", "\u{85}", false),
        .init("^\\S$", "\u{85}", true),
        .init("^\\s$", "\u{FEFF}", true),
        .init("^\\uD83D\\uDE00$", "😀", true),
        .init("^\\u{0000041}$", "A", true),
        .init("^[\\uD83D\\uDE00-\\uD83D\\uDE02]$", "😁", true)
    ]

    @Test(arguments: cases)
    func pattern_answersAsJavaScript(_ test: Case) throws {
        let pattern = try #require(Pattern(test.pattern), "\(test.pattern) did not compile")
        #expect(pattern.matches(test.text) == test.matches)
    }

    /// Constructs a backtracking engine needs, refused with a reason instead of compiled.
    @Test(arguments: [
        "(a)\\1", "(?=a)", "(?!a)", "(?<=a)b", "(?<!a)b", "\\k<x>", "\\p{L}", "(?m)^a", "(", ")", "[a", "a**", "*a", "[z-a]", "a{3,2}", "\\", "\\q",
        "a{1001}", "(a{1000}){3}", "\\x+4", "\\u+041", "\\u{+41}", "\\x-0", "\\uD83D"
    ])
    func unsupportedOrInvalid_isRefusedWithAReason(_ source: String) {
        #expect(Pattern(source) == nil, "\(source) compiled")
        guard case .failure(let problem) = Pattern.check(source) else {
            Issue.record("\(source) checked")
            return
        }
        #expect(!problem.message.isEmpty)
    }

    /// Nested groups deep past the bound, and empty bodies repeated a million times, are refused without the work.
    @Test func nestingAndEmptyRepetitions_areBounded() {
        #expect(Pattern(String(repeating: "(", count: 100) + String(repeating: ")", count: 100)) == nil)
        #expect(Pattern("((((?:){1000}){1000}){1000}){1000}") == nil)
    }

    /// A class was scanned member by member at every step: `[` two thousand `b`s `a]{1000}a{997}c` against a 16 KB
    /// attribute took 15 s (release build; a quarter of that text here, in a debug build). Classes are sorted, merged and binary-searched, and count against the program's size.
    @Test func largeClassesRepeated_answerInLinearTime() throws {
        let text = String(repeating: "a", count: 4 * 1024)
        let clock = ContinuousClock()
        let started = clock.now
        let repeated = try #require(Pattern("[" + String(repeating: "b", count: 2_000) + "a]{1000}a{997}c"))
        #expect(!repeated.matches(text))
        let members = (0..<2_000).map { String(UnicodeScalar(0x4E00 + $0 * 3)!) }.joined()
        let distinct = try #require(Pattern("[" + members + "a]{50}c"))
        #expect(!distinct.matches(text))
        #expect(clock.now - started < .seconds(60))
        // Two thousand ranges a class, a thousand times over, is past the size bound.
        #expect(Pattern("[" + members + "]{1000}") == nil)
    }

    /// `^(a+)+$` against thirty `a`s and a `b` never answered under a backtracking engine: a `PATCH` setting that
    /// attribute wedged an event loop for good (SIGTERM could not stop the daemon). Catastrophic shapes answer at
    /// once now. A hang guard, not a speed target.
    @Test(arguments: ["^(a+)+$", "^(a|a)*$", "^(a|aa)+$", "^(.*a){12}$", ".*a.*a.*a.*a.*a.*b"])
    func catastrophicBacktrackingShapes_answerInLinearTime(_ source: String) throws {
        let pattern = try #require(Pattern(source))
        let text = String(repeating: "a", count: 16 * 1024) + "!"
        let clock = ContinuousClock()
        let started = clock.now
        _ = pattern.matches(text)
        #expect(clock.now - started < .seconds(20))
    }

    @Test func attrMatches_inARule_usesThePattern() throws {
        let rules = try ruleSet(#"{"flags": {"r": {"when": {"attr": {"key": "s", "matches": "^(a+)+$"}}}}}"#)
        let hostile = context { $0.attributes["s"] = .string(String(repeating: "a", count: 30) + "b") }
        #expect(rules.evaluate("r", input(hostile)).value == false)
        let fine = context { $0.attributes["s"] = .string("aaaa") }
        #expect(rules.evaluate("r", input(fine)).value == true)
    }
}

/// Closing `(?i)` classes over their members' case forms is bounded per pattern, not per class: a thousand wide
/// classes would otherwise look up four million scalars' case mappings to compile one pattern.
@Suite struct PatternCompileBoundTests {
    @Test func manyWideCaseInsensitiveClasses_compileWithoutTheWork() throws {
        let classes = String(repeating: "[a-\\u1000]", count: 1_000)
        let clock = ContinuousClock()
        let started = clock.now
        let pattern = try #require(Pattern("(?i)" + classes))
        #expect(clock.now - started < .seconds(20))
        #expect(pattern.matches(String(repeating: "B", count: 1_000)))
    }
}
