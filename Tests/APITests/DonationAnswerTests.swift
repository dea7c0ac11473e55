import Rules
import TestRandom
import Testing

@testable import API
@testable import Engine

/// A donation's answer written straight as bytes equals the `JSONValue` tree it replaced, written by `JSONWriter`.
@Suite struct DonationAnswerTests {
    /// The answer as it was built before: a tree, then `JSONWriter`.
    static func tree(seq: UInt64, summary: DonationSummary?, changes: [FlagChange], fired: [(trigger: String, at: Instant)]) -> [UInt8] {
        let firedJSON: [JSONValue] = fired.map { ["trigger": .string($0.trigger), "at": .string(ISO8601.format($0.at))] }
        let body: JSONValue = [
            "seq": .int(Int(seq)), "event": summary.map { ContextJSON.summary($0, includeRecent: false) } ?? .null,
            "changed": .array(changes.map(\.json)), "fired": .array(firedJSON)
        ]
        return JSONWriter.write(body)
    }

    static let values: [JSONValue?] = [nil, .bool(true), .int(20), .string("v\"1"), ["sku": "pro", "off": 25], [1, "two", .null]]
    static let names = ["promo-banner", "caf\u{E9}", "tab\tand\u{7F}"]

    @Test func encode_randomOutcomes_matchTheJSONValueTree() {
        var random = SplitMix(seed: 7)
        for _ in 0..<1000 {
            func evaluation(_ key: String) -> Evaluation {
                Evaluation(key: key, value: Self.values[random.next(upTo: Self.values.count)], reason: .targetingMatch, matched: true)
            }
            let changes = (0..<random.next(upTo: 4)).map { _ in
                let key = Self.names[random.next(upTo: Self.names.count)]
                return FlagChange(key: key, current: evaluation(key), previous: evaluation(key))
            }
            let fired = (0..<random.next(upTo: 3)).map { _ in
                (trigger: Self.names[random.next(upTo: Self.names.count)], at: Instant(milliseconds: Int64(random.next(upTo: 1 << 42))))
            }
            let at = Instant(milliseconds: Int64(random.next(upTo: 1 << 42)))
            let summary =
                random.next(upTo: 5) == 0
                ? nil
                : DonationSummary(
                    count: random.next(upTo: 100), first: .init(at: at, appVersion: nil), last: .init(at: at + 1, appVersion: "2.0"))
            let seq = UInt64(random.next(upTo: .max))
            #expect(
                DonationAnswer.encode(seq: seq, summary: summary, changes: changes, fired: fired)
                    == Self.tree(seq: seq, summary: summary, changes: changes, fired: fired))
        }
    }
}
