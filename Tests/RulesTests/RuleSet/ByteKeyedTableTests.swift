import TestRandom
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

    /// Random keys of every length around the eight-byte step (prefixes of one another, trailing NUL bytes, the
    /// empty key, non-ASCII): each finds its own value, every near miss finds none, and the keys keep their order.
    @Test(arguments: [UInt64(1), 2, 3])
    func randomKeys_findTheirOwnValues_andNearMissesNone(seed: UInt64) {
        var random = SplitMix(seed: seed)
        let pieces = ["a", "b", "\u{0}", "é", "e\u{301}", "-", "7", "flag", "日本"]
        var keys: [String] = [""]
        var seen: Set<ByteKey> = [ByteKey("")]
        for _ in 0..<3_000 {
            let key = (0..<random.next(upTo: 20)).map { _ in pieces[random.next(upTo: pieces.count)] }.joined()
            if seen.insert(ByteKey(key)).inserted { keys.append(key) }
        }
        let table = ByteKeyedTable(keys.enumerated().map { ($0.element, $0.offset) })
        #expect(table.count == keys.count)
        #expect(table.keys == keys)
        for (index, key) in keys.enumerated() {
            #expect(table[key] == index, "\(Array(key.utf8))")
            for miss in [key + "\u{0}", key + "x", "x" + key, String(key.dropLast())] where !seen.contains(ByteKey(miss)) {
                #expect(table[miss] == nil, "\(Array(miss.utf8))")
            }
        }
    }

    @Test func anEmptyTable_findsNothing() {
        let table = ByteKeyedTable<Int>([])
        #expect(table.isEmpty)
        #expect(table[""] == nil)
        #expect(table["promo-banner"] == nil)
    }

    /// Keys that differ only past the first eight bytes, or only in their length, land apart.
    @Test func keysAlikeButForTheirTailOrLength_areApart() {
        let keys = ["flag-number-0001", "flag-number-0002", "flag-number-000", "flag-number-00010", "\u{0}", "\u{0}\u{0}"]
        let table = ByteKeyedTable(keys.enumerated().map { ($0.element, $0.offset) })
        for (index, key) in keys.enumerated() { #expect(table[key] == index) }
    }
}
