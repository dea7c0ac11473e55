import Rules
import Testing

@testable import Store

/// Snapshot decoding shares keys and plain string values through an interner: what comes back is the context that
/// went in, whatever the text (escapes, quotes, control characters, non-ASCII, empty), for every user in a row.
@Suite struct ContextCodecInterningTests {
    static let values: [JSONValue] = [
        "premium", "", "with \"quotes\"", "back\\slash", "tab\there", "bell\u{7}", "del\u{7F}", "café", "cafe\u{301}", "\"",
        "a-very-long-attribute-value-that-is-longer-than-the-sixty-four-bytes-the-interner-keeps",
        .int(42), .bool(true), .null, [1, "two"], ["nested": "x"]
    ]

    /// The shared interner of a snapshot load, and a table of keys (users decoded on first touch): the same contexts.
    @Test(arguments: [StringInterner(), StringInterner.keys(), StringInterner.keys(limit: 0), StringInterner(limit: 0)])
    func decode_returnsEveryContextExactly(interner: StringInterner) throws {
        var interner = interner
        for (index, value) in Self.values.enumerated() {
            var context = UserContext()
            context.attributes["plan"] = value
            context.attributes["k\(index)"] = value
            context.counters["screen_views"] = index
            context.donations["appStarted"] = DonationSummary(
                count: 1, first: .init(at: Instant(milliseconds: 1000), appVersion: "1.2"), last: nil, recent: [Instant(milliseconds: 1000)])
            var writer = BinaryWriter()
            ContextCodec.encode(user: "user-\(index)", context, into: &writer)
            var reader = BinaryReader(writer.bytes)
            let (user, decoded) = try ContextCodec.decode(&reader, interning: &interner)
            #expect(user == "user-\(index)")
            #expect(decoded == context, "value \(value)")
            #expect(reader.isAtEnd)
        }
    }

    @Test func interner_sameBytes_sameString_andBoundedTable() {
        var interner = StringInterner(limit: 2)
        func make(_ text: String) -> String {
            Array(text.utf8).withUnsafeBufferPointer { interner.string($0) }
        }
        #expect(make("screen_views_long_key") == "screen_views_long_key")
        #expect(make("screen_views_long_key") == "screen_views_long_key")
        #expect(make("b") == "b")
        // Past the limit strings are still made right, just not kept.
        #expect(make("c") == "c")
        #expect(make("c") == "c")
        #expect(make("") == "")
    }

    /// A shard's table of keys outlives the users decoded through it: it keeps their keys, never a value (an email
    /// kept there would stay in memory after the user is erased), and tells two spellings of a key apart.
    @Test func keysTable_keepsKeysOnly_andTellsSpellingsApart() throws {
        var interner = StringInterner.keys()
        var context = UserContext()
        context.attributes["email"] = "someone-with-a-long-address@example.com"
        context.counters["caf\u{E9}"] = 1
        context.counters["cafe\u{301}"] = 2
        context.donations["appStarted"] = DonationSummary(
            count: 1, first: .init(at: Instant(milliseconds: 1000), appVersion: "1.2.3-beta"), last: nil, recent: [])
        var writer = BinaryWriter()
        ContextCodec.encode(user: "user-1", context, into: &writer)
        for _ in 0..<2 {
            var reader = BinaryReader(writer.bytes)
            let decoded = try ContextCodec.decode(&reader, interning: &interner).1
            #expect(decoded == context)
            #expect(decoded.counters.count == 2)
        }
        #expect(interner.count == 4, "email, caf\u{E9}, cafe\u{301}, appStarted")
        for value in ["someone-with-a-long-address@example.com", "1.2.3-beta", "user-1"] {
            #expect(!interner.holds(value), "\(value) was kept")
        }
        #expect(interner.holds("cafe\u{301}") && interner.holds("caf\u{E9}"))
    }
}
