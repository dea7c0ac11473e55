import TestRandom
import Testing

@testable import Rules

/// `DonationSummary.count(within:now:)`: the donations in `[now − window, now]` of an ascending history, found by
/// binary search; the answer is the one a walk over every instant gives.
@Suite struct DonationWindowTests {
    static func summary(_ milliseconds: [Int64]) -> DonationSummary {
        DonationSummary(count: milliseconds.count, recent: milliseconds.map { Instant(milliseconds: $0) })
    }

    /// The readable definition: every instant tested.
    static func walked(_ recent: [Instant], window: Milliseconds, now: Instant) -> Int {
        recent.filter { $0 >= now - window && $0 <= now }.count
    }

    @Test func bothEndsOfTheWindow_count() {
        let summary = Self.summary([100, 200, 300])
        #expect(summary.count(within: 100, now: Instant(milliseconds: 300)) == 2)
        #expect(summary.count(within: 200, now: Instant(milliseconds: 300)) == 3)
        #expect(summary.count(within: 99, now: Instant(milliseconds: 300)) == 1)
        #expect(summary.count(within: 0, now: Instant(milliseconds: 200)) == 1)
    }

    @Test func donationsAfterNow_doNotCount() {
        let summary = Self.summary([100, 200, 300, 400])
        #expect(summary.count(within: 1_000, now: Instant(milliseconds: 250)) == 2)
        #expect(summary.count(within: 1_000, now: Instant(milliseconds: 50)) == 0)
    }

    @Test func emptyHistory_andWindowsPastEitherEnd_countNothingOrEverything() {
        #expect(Self.summary([]).count(within: 1_000, now: Instant(milliseconds: 0)) == 0)
        let summary = Self.summary([100, 200])
        #expect(summary.count(within: 10, now: Instant(milliseconds: 50)) == 0)
        #expect(summary.count(within: 10, now: Instant(milliseconds: 1_000)) == 0)
        #expect(summary.count(within: .max, now: Instant(milliseconds: .max)) == 2)
        #expect(summary.count(within: .max, now: Instant(milliseconds: .min)) == 0)
    }

    /// Repeated instants (several donations in one millisecond) all count, at either end of the window.
    @Test func repeatedInstants_allCount() {
        let summary = Self.summary([100, 100, 100, 200, 200])
        #expect(summary.count(within: 100, now: Instant(milliseconds: 200)) == 5)
        #expect(summary.count(within: 0, now: Instant(milliseconds: 100)) == 3)
        #expect(summary.count(within: 99, now: Instant(milliseconds: 200)) == 2)
    }

    @Test func randomHistories_countAsTheWalkDoes() {
        var random = SplitMix(seed: 7)
        for _ in 0..<2_000 {
            let length = random.next(upTo: 40)
            var milliseconds = (0..<length).map { _ in Int64(random.next(upTo: 1_000)) }
            milliseconds.sort()
            let summary = Self.summary(milliseconds)
            let now = Instant(milliseconds: Int64(random.next(upTo: 1_200)) - 100)
            let window = Milliseconds(random.next(upTo: 1_200))
            #expect(summary.count(within: window, now: now) == Self.walked(Array(summary.recent), window: window, now: now))
        }
    }
}
