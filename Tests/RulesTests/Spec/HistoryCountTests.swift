import TestRandom
import Testing

@testable import Rules

/// Evaluation counts a history's periods without a dictionary (`nonzeroCounts`); these pin it to the dictionary
/// the explanation and next-change walk use, on random histories across zones, units and window lengths. Histories
/// are ascending, as every context holds them (the reducer inserts in order, a context import sorts, the codec
/// restores the order written): evaluation finds the window's instants by binary search.
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
            let fast = test.nonzeroCounts(recent, now: now, zone: zone).sorted()
            let reference = test.counts(recent, now: now, zone: zone).values.sorted()
            #expect(fast == reference)
        }
    }
}
