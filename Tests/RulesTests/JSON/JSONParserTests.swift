import Rules
import Testing

@Suite struct JSONParserTests {
    let parser = JSONParser()

    @Test(arguments: ["0.0", "1e3", "-0", "12345678901234567890", "1.50", "-2.5E-3"])
    func parse_number_keepsItsLexicalFormOnWrite(text: String) throws {
        let value = try parser.parse(text)
        #expect(JSONWriter.string(value) == text)
    }

    @Test func parse_document_roundTripsWithMemberOrder() throws {
        let text = #"{"z":1,"a":[true,false,null,"x\"y\\\n\u0001é"],"m":{"k":{}},"e":[]}"#
        let value = try parser.parse(text)
        #expect(JSONWriter.string(value) == #"{"z":1,"a":[true,false,null,"x\"y\\\n\u0001é"],"m":{"k":{}},"e":[]}"#)
        #expect(value["a"]?.arrayValue?.count == 4)
        #expect(value["z"]?.numberValue?.int == 1)
    }

    @Test func parse_escapes_decodeIncludingSurrogatePairs() throws {
        #expect(try parser.parse(#""\u00e9\ud83d\ude00\/\b\f\t""#) == .string("é😀/\u{8}\u{c}\t"))
    }

    @Test(arguments: [
        ("", JSONError.unexpectedEnd(offset: 0)),
        ("{", .unexpectedEnd(offset: 1)),
        ("[1,]", .unexpectedByte(offset: 3, expected: "a JSON value")),
        ("{\"a\":1,}", .unexpectedByte(offset: 7, expected: "a string key")),
        ("{\"a\" 1}", .unexpectedByte(offset: 5, expected: "':'")),
        ("01", .invalidNumber(offset: 0)),
        ("1.", .invalidNumber(offset: 0)),
        ("-", .invalidNumber(offset: 0)),
        ("1e", .invalidNumber(offset: 0)),
        ("1e999", .invalidNumber(offset: 0)),
        ("tru", .unexpectedEnd(offset: 3)),
        ("nul1", .unexpectedByte(offset: 3, expected: "'null'")),
        ("\"a\u{1}b\"", .controlCharacterInString(offset: 2)),
        ("\"\\x\"", .invalidEscape(offset: 1)),
        ("\"\\ud800\"", .invalidEscape(offset: 1)),
        ("\"\\udc00\"", .invalidEscape(offset: 1)),
        ("{\"a\":1,\"a\":2}", .duplicateKey(offset: 7, key: "a")),
        ("1 2", .trailingData(offset: 2)),
        ("'a'", .unexpectedByte(offset: 0, expected: "a JSON value"))
    ])
    func parse_malformed_reportsErrorWithOffset(text: String, expected: JSONError) {
        #expect(throws: expected) { try parser.parse(text) }
    }

    @Test(
        arguments: [
            [0x22, 0xC3, 0x28, 0x22], [0x22, 0xC0, 0xAF, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22],
            [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], [0x22, 0xE2, 0x82, 0x22], [0x22, 0xFF, 0x22]
        ] as [[UInt8]])
    func parse_invalidUTF8_isRefusedAtItsOffset(bytes: [UInt8]) {
        #expect(throws: JSONError.invalidUTF8(offset: 1)) { try parser.parse(bytes) }
    }

    @Test func parse_depth_isLimited() throws {
        let ok = String(repeating: "[", count: 32) + String(repeating: "]", count: 32)
        _ = try parser.parse(ok)
        let deep = String(repeating: "[", count: 33) + String(repeating: "]", count: 33)
        #expect(throws: JSONError.tooDeep(offset: 32, limit: 32)) { try parser.parse(deep) }
    }

    @Test func parse_size_isLimited() {
        let small = JSONParser(maxDepth: 32, maxBytes: 4)
        #expect(throws: JSONError.tooLarge(size: 5, limit: 4)) { try small.parse("12345") }
    }

    @Test func number_integerReadings() throws {
        #expect(JSONNumber(3).text == "3")
        #expect(JSONNumber(2.5).text == "2.5")
        #expect(try parser.parse("3.0").numberValue?.int == 3)
        #expect(try parser.parse("3.5").numberValue?.int == nil)
        #expect(try parser.parse("3.0").numberValue?.isIntegerLiteral == false)
    }

    /// Past 2^53 distinct integers share a double: equality compared the doubles, so 2^53 + 1 equalled 2^53.
    @Test func numbersPast2To53_areEqualOnlyWhenTheIntegersAre() throws {
        #expect(try parser.parse("9007199254740993") != parser.parse("9007199254740992"))
        #expect(try parser.parse("-9223372036854775807") != parser.parse("-9223372036854775806"))
        #expect(JSONValue.int(9_007_199_254_740_993) == (try parser.parse("9007199254740993")))
        #expect(try parser.parse("9007199254740992") == parser.parse("9007199254740992.0"))
        #expect(try parser.parse("3") == parser.parse("3.0"))
    }

    @Test func object_equalityIgnoresOrder() throws {
        #expect(try parser.parse(#"{"a":1,"b":2}"#) == parser.parse(#"{"b":2,"a":1}"#))
    }
}
