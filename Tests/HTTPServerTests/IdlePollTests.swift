import HTTP
import Testing

@testable import HTTPServer

/// The idle loop's polling window as the halt-polling governor keeps it: pure arithmetic on measured stretches.
@Suite struct IdlePollTests {
    let limit: Int64 = 200_000

    @Test func aNewLoop_sleepsAtOnce() {
        #expect(IdlePoll(limit: .microseconds(200)).window == 0)
    }

    @Test func stretchesEndingWithinTheLimit_growTheWindow_fromTheSmallest_doubling_upToTheLimit() {
        var poll = IdlePoll(limit: .microseconds(200))
        var windows: [Int64] = []
        for _ in 0..<7 {
            poll.idleEnded(after: 150_000, foundWhilePolling: false)
            windows.append(poll.window)
        }
        #expect(windows == [10_000, 20_000, 40_000, 80_000, 160_000, 200_000, 200_000])
    }

    @Test func aStretchEndingExactlyAtTheLimit_stillGrowsIt_oneNanosecondPast_shrinksIt() {
        var poll = IdlePoll(limit: .microseconds(200))
        poll.idleEnded(after: limit, foundWhilePolling: false)
        #expect(poll.window == 10_000)
        poll.idleEnded(after: limit, foundWhilePolling: false)
        #expect(poll.window == 20_000)
        poll.idleEnded(after: limit + 1, foundWhilePolling: false)
        #expect(poll.window == 10_000)
    }

    @Test func longStretches_halveTheWindow_andBelowTheSmallest_pollingStops() {
        var poll = IdlePoll(limit: .microseconds(200))
        for _ in 0..<6 { poll.idleEnded(after: 1_000, foundWhilePolling: false) }
        #expect(poll.window == limit)
        var windows: [Int64] = []
        for _ in 0..<6 {
            poll.idleEnded(after: 5_000_000, foundWhilePolling: false)
            windows.append(poll.window)
        }
        #expect(windows == [100_000, 50_000, 25_000, 12_500, 0, 0])
    }

    @Test func aPollThatFoundItsEvent_keepsTheWindow() {
        var poll = IdlePoll(limit: .microseconds(200))
        for _ in 0..<3 { poll.idleEnded(after: 100_000, foundWhilePolling: false) }
        let window = poll.window
        for idle in [Int64(0), 1, 39_999] { poll.idleEnded(after: idle, foundWhilePolling: true) }
        #expect(poll.window == window)
    }

    /// Requests further apart than the limit: whatever the window was, the loop soon stops burning CPU for them.
    @Test func sparseRequests_settleAtNoPolling() {
        var poll = IdlePoll(limit: .microseconds(200))
        for _ in 0..<10 { poll.idleEnded(after: 50_000, foundWhilePolling: false) }
        for _ in 0..<5 { poll.idleEnded(after: 250_000, foundWhilePolling: false) }
        #expect(poll.window == 0)
    }

    @Test func aZeroLimit_neverPolls() {
        var poll = IdlePoll(limit: .zero)
        for idle in [Int64(0), 1_000, 100_000, 10_000_000] { poll.idleEnded(after: idle, foundWhilePolling: false) }
        #expect(poll.window == 0)
        #expect(poll.limit == 0)
    }

    @Test func theLimit_isClampedToTenMilliseconds_andANegativeOneToZero() {
        #expect(IdlePoll(limit: .seconds(5)).limit == 10_000_000)
        #expect(IdlePoll(limit: .seconds(Int64.max)).limit == 10_000_000)
        #expect(IdlePoll(limit: .microseconds(-3)).limit == 0)
        #expect(IdlePoll(limit: .nanoseconds(1)).limit == 1)
    }

    /// A limit under the smallest window: a stretch within it grows the window to the limit, never past it.
    @Test func aLimitBelowTheSmallestWindow_isTheWindow() {
        var poll = IdlePoll(limit: .microseconds(4))
        poll.idleEnded(after: 3_000, foundWhilePolling: false)
        #expect(poll.window == 4_000)
    }
}
