import Testing

@testable import Rules

/// A rule set's tables keep keys that `String` equates but whose bytes differ apart: each finds its own value.
@Suite struct ByteKeyedTableTests {
    /// Every spelling of `é…é` (each letter composed or decomposed): 2^count byte-distinct, canonically equal keys.
    static func spellings(of count: Int) -> [String] {
        (0..<(1 << count)).map { mask in
            String((0..<count).map { (mask >> $0) & 1 == 0 ? "\u{E9}" : "e\u{301}" }.joined())
        }
    }

    @Test func everySpellingOfOneName_findsItsOwnValue() {
        let keys = Self.spellings(of: 12)
        let byteKeys = Set(keys.map { ByteKey($0) })
        #expect(byteKeys.count == 4_096)
        let table = ByteKeyedTable(keys.enumerated().map { ($0.element, $0.offset) })
        #expect(table.count == keys.count)
        for (index, key) in keys.enumerated() { #expect(table[key] == index) }
        #expect(Set(table.keys.map { ByteKey($0) }) == byteKeys)
        #expect(table["e"] == nil)
    }

    @Test func aLaterEntryWithTheSameBytes_replacesTheEarlierOne_whicheverSpellingCameFirst() {
        let nfc = "caf\u{E9}", nfd = "cafe\u{301}"
        let table = ByteKeyedTable([(nfc, 1), (nfd, 2), (nfd, 3), (nfc, 4)])
        #expect(table[nfc] == 4)
        #expect(table[nfd] == 3)
        #expect(table.count == 2)
        #expect(table.values.sorted() == [3, 4])
    }
}
