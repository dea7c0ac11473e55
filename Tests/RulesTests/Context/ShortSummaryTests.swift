import Rules
import TestRandom
import Testing

/// A donation answer's summary written as bytes equals the `JSONValue` form written by `JSONWriter`, and never
/// needs more room than `shortSummaryByteBound` (the cursor is given exactly that much).
@Suite struct ShortSummaryTests {
    static let versions: [String?] = [
        nil, "1.2", "", "quote\"back\\slash\u{1}", "caf\u{E9}", String(repeating: "\u{1F}", count: 40)
    ]

    static func written(_ summary: DonationSummary) -> [UInt8] {
        ByteCursor.bytes(capacity: ContextJSON.shortSummaryByteBound(summary)) { ContextJSON.writeShortSummary(summary, into: &$0) }
    }

    @Test func writeShortSummary_randomSummaries_matchTheJSONValueForm() {
        var random = SplitMix(seed: 5)
        for _ in 0..<2000 {
            func mark() -> DonationSummary.Mark? {
                guard random.next(upTo: 4) > 0 else { return nil }
                let at = Instant(milliseconds: Int64(random.next(upTo: 4_000_000_000_000)) - 1_000_000_000_000)
                return DonationSummary.Mark(at: at, appVersion: Self.versions[random.next(upTo: Self.versions.count)])
            }
            let summary = DonationSummary(count: random.next(upTo: 1_000_000), first: mark(), last: mark(), recent: [t0])
            #expect(Self.written(summary) == JSONWriter.write(ContextJSON.summary(summary, includeRecent: false)))
        }
    }

    /// The longest summary there is: the widest count, expanded years with milliseconds, escapes only.
    @Test(arguments: [Int.min, Int.max])
    func writeShortSummary_atItsLongest_fitsItsBound(count: Int) {
        let version = Self.versions.last!
        let summary = DonationSummary(
            count: count, first: .init(at: Instant(milliseconds: .min), appVersion: version),
            last: .init(at: Instant(milliseconds: .max), appVersion: version))
        #expect(Self.written(summary) == JSONWriter.write(ContextJSON.summary(summary, includeRecent: false)))
    }
}
