import TestRandom
import Testing

@testable import Rules

/// Evaluation counts a history's periods without a dictionary (`nonzeroCounts`), and the explanation and the
/// next-change walk with one (`counts`); these pin both to the definition, each instant's period looked up on its
/// own, on random histories across zones, units and window lengths. Histories are ascending, as every context
/// holds them (the reducer inserts in order, a context import sorts, the codec restores the order written):
/// evaluation finds the window's instants by binary search.
@Suite struct HistoryCountTests {
    @Test(arguments: [UInt64(1), 2, 3])
    func nonzeroCounts_equalTheDictionarysValues(seed: UInt64) {
        var random = SplitMix(seed: seed)
        let zones: [String?] = [nil, "Europe/Paris", "Australia/Lord_Howe", "America/St_Johns"]
        let units: [CalendarPeriod.Unit] = [.hour, .day, .week, .month, .quarter, .year]
        let now = Instant(milliseconds: 1_773_144_000_000)
        for _ in 0..<1_500 {
            let test = HistoryTest(
                event: "e", periods: 1 + random.next(upTo: 40), period: LocalPeriod(units[random.next(upTo: units.count)]),
                statistic: .mean, op: .gte, threshold: JSONNumber(1))
            let spread = Int64([3_600_000, 86_400_000, 40 * 86_400_000][random.next(upTo: 3)])
            var recent = (0..<random.next(upTo: 60)).map { _ in
                Instant(milliseconds: now.milliseconds - Int64(random.next(upTo: Int(spread))) + Int64(random.next(upTo: 3_600_000)))
            }
            recent.sort()
            let zone = zones[random.next(upTo: zones.count)]
            let reference = Self.reference(test, recent, now: now, zone: zone)
            #expect(test.nonzeroCounts(DonationHistory(recent), now: now, zone: zone).sorted() == reference)
            #expect(test.counts(DonationHistory(recent), now: now, zone: zone).values.sorted() == reference)
        }
    }

    /// The readable definition: each donation up to `now` in the period its own zone lookup gives, counted when
    /// that period is one of the window's.
    static func reference(_ test: HistoryTest, _ recent: [Instant], now: Instant, zone: String?) -> [Int] {
        let current = test.period.index(of: now, in: zone)
        var counts: [Int64: Int] = [:]
        for instant in recent where instant <= now {
            let index = test.period.index(of: instant, in: zone)
            if current - index >= 0, current - index < Int64(test.periods) { counts[index, default: 0] += 1 }
        }
        return counts.values.sorted()
    }
}
