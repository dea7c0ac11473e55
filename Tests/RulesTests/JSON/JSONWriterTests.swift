import Rules
import TestRandom
import Testing

@Suite struct JSONWriterTests {
    /// Escapes at the start, middle and end of a string, next to each other and between plain runs, and non-ASCII
    /// bytes passed through: the run-copying writer must match the byte-by-byte rule everywhere.
    @Test(arguments: [
        ("", #""""#), ("plain", #""plain""#), ("\"", #""\"""#), ("a\"b", #""a\"b""#), ("\\end\\", #""\\end\\""#),
        ("\n\r\t", #""\n\r\t""#), ("x\u{01}y\u{1F}z\u{7F}", #""x\u0001y\u001fz\u007f""#), ("café ☕", "\"café ☕\""),
        ("\u{0}", #""\u0000""#)
    ])
    func writeString_escapesOnlyWhatJSONRequires(text: String, expected: String) {
        var out: [UInt8] = []
        JSONWriter.writeString(text, into: &out)
        #expect(String(decoding: out, as: UTF8.self) == expected)
    }

    @Test(arguments: [
        ("", #""""#), ("\"", #""\"""#), ("\n\r\t", #""\n\r\t""#), ("x\u{01}y\u{1F}z\u{7F}", #""x\u0001y\u001fz\u007f""#),
        ("café ☕", "\"café ☕\""), ("\u{0}", #""\u0000""#)
    ])
    func byteCountOfAString_isWhatWriteStringWrites(text: String, expected: String) {
        #expect(JSONWriter.byteCount(string: text) == expected.utf8.count)
    }

    /// Random trees of every kind of value, nested, with escapes, empty and one-member containers, and numbers of
    /// every sign and width: the count made without writing equals the length written.
    @Test(arguments: [UInt64(1), 2, 3])
    func byteCount_randomValues_equalsTheWrittenLength(seed: UInt64) {
        var random = SplitMix(seed: seed)
        let texts = ["", "a", "\"q\"", "tab\t", "\u{7F}\u{1}", "caf\u{E9}", "cafe\u{301}", "\\", "line\r\n"]
        func value(depth: Int) -> JSONValue {
            switch random.next(upTo: depth > 3 ? 4 : 6) {
            case 0: return .null
            case 1: return .bool(random.next(upTo: 2) == 0)
            case 2: return [.int(0), .int(-7), .int(Int.max), .int(Int.min), .double(2.5), .double(-1e300)][random.next(upTo: 6)]
            case 3: return .string(texts[random.next(upTo: texts.count)])
            case 4: return .array((0..<random.next(upTo: 4)).map { _ in value(depth: depth + 1) })
            default:
                var object = JSONObject()
                for _ in 0..<random.next(upTo: 4) { object[texts[random.next(upTo: texts.count)]] = value(depth: depth + 1) }
                return .object(object)
            }
        }
        for _ in 0..<2_000 {
            let tree = value(depth: 0)
            #expect(JSONWriter.byteCount(tree) == JSONWriter.write(tree).count)
            for number in [0, 9, 10, -1, -10, Int.max, Int.min] {
                #expect(JSONWriter.byteCount(decimal: number) == String(number).utf8.count)
                var digits: [UInt8] = []
                JSONWriter.appendDecimal(number, into: &digits)
                JSONWriter.appendDecimal(UInt64(number.magnitude) + (number < 0 ? 0 : UInt64.max - UInt64(number.magnitude)), into: &digits)
                #expect(String(decoding: digits, as: UTF8.self) == String(number) + String(number < 0 ? UInt64(number.magnitude) : UInt64.max))
            }
        }
    }
}
