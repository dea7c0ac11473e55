import Rules
import TestRandom
import Testing

/// A donation answer's summary written as bytes equals the `JSONValue` form written by `JSONWriter`.
@Suite struct ShortSummaryTests {
    static let versions: [String?] = [nil, "1.2", "", "quote\"back\\slash\u{1}", "caf\u{E9}"]

    @Test func writeShortSummary_randomSummaries_matchTheJSONValueForm() {
        var random = SplitMix(seed: 5)
        for _ in 0..<2000 {
            func mark() -> DonationSummary.Mark? {
                guard random.next(upTo: 4) > 0 else { return nil }
                let at = Instant(milliseconds: Int64(random.next(upTo: 4_000_000_000_000)) - 1_000_000_000_000)
                return DonationSummary.Mark(at: at, appVersion: Self.versions[random.next(upTo: Self.versions.count)])
            }
            let summary = DonationSummary(count: random.next(upTo: 1_000_000), first: mark(), last: mark(), recent: [t0])
            var bytes: [UInt8] = []
            ContextJSON.writeShortSummary(summary, into: &bytes)
            #expect(bytes == JSONWriter.write(ContextJSON.summary(summary, includeRecent: false)))
        }
    }
}
