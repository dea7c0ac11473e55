import HTTP
import Testing

@testable import HTTPServer

/// The idle loop's polling window as the halt-polling governor keeps it, and its pause when another task wants the
/// CPU: pure arithmetic on measured stretches.
@Suite struct IdlePollTests {
    let limit: Int64 = 200_000
    let now: Int64 = 5_000_000_000

    func grown(to count: Int) -> IdlePoll {
        var poll = IdlePoll(limit: .microseconds(200))
        for _ in 0..<count { poll.idleEnded(after: 1_000, foundWhilePolling: false, at: now) }
        return poll
    }

    @Test func aNewLoop_sleepsAtOnce() {
        #expect(IdlePoll(limit: .microseconds(200)).window(at: now) == 0)
    }

    @Test func stretchesEndingWithinTheLimit_growTheWindow_fromTheSmallest_doubling_upToTheLimit() {
        var poll = IdlePoll(limit: .microseconds(200))
        var windows: [Int64] = []
        for _ in 0..<7 {
            poll.idleEnded(after: 150_000, foundWhilePolling: false, at: now)
            windows.append(poll.window(at: now))
        }
        #expect(windows == [10_000, 20_000, 40_000, 80_000, 160_000, 200_000, 200_000])
    }

    @Test func aStretchEndingExactlyAtTheLimit_stillGrowsIt_oneNanosecondPast_shrinksIt() {
        var poll = IdlePoll(limit: .microseconds(200))
        poll.idleEnded(after: limit, foundWhilePolling: false, at: now)
        #expect(poll.window(at: now) == 10_000)
        poll.idleEnded(after: limit, foundWhilePolling: false, at: now)
        #expect(poll.window(at: now) == 20_000)
        poll.idleEnded(after: limit + 1, foundWhilePolling: false, at: now)
        #expect(poll.window(at: now) == 10_000)
    }

    @Test func longStretches_halveTheWindow_andBelowTheSmallest_pollingStops() {
        var poll = grown(to: 6)
        #expect(poll.window(at: now) == limit)
        var windows: [Int64] = []
        for _ in 0..<6 {
            poll.idleEnded(after: 5_000_000, foundWhilePolling: false, at: now)
            windows.append(poll.window(at: now))
        }
        #expect(windows == [100_000, 50_000, 25_000, 12_500, 0, 0])
    }

    /// The loop reports a sleep that timed out (the tick) as `Int64.max`: a long stretch, whatever the tick.
    @Test func aSleepThatTimedOut_shrinksTheWindow() {
        var poll = grown(to: 6)
        poll.idleEnded(after: .max, foundWhilePolling: false, at: now)
        #expect(poll.window(at: now) == 100_000)
    }

    @Test func aPollThatFoundItsEvent_keepsTheWindow() {
        var poll = grown(to: 3)
        let window = poll.window(at: now)
        for idle in [Int64(0), 1, 39_999] { poll.idleEnded(after: idle, foundWhilePolling: true, at: now) }
        #expect(poll.window(at: now) == window)
    }

    /// Requests further apart than the limit: whatever the window was, the loop soon stops burning CPU for them.
    @Test func sparseRequests_settleAtNoPolling() {
        var poll = grown(to: 10)
        for _ in 0..<5 { poll.idleEnded(after: 250_000, foundWhilePolling: false, at: now) }
        #expect(poll.window(at: now) == 0)
    }

    /// Yields that let other tasks run for more than 5 ms of a 50 ms period in all: another task wants the CPU, and
    /// a polling loop would wait out its slices; polling stops for a second, the window does not grow meanwhile,
    /// and afterwards it starts over.
    @Test func yieldsPastTheBudget_stopPollingForThePause_thenItGrowsAgainFromNothing() {
        var poll = grown(to: 6)
        // A CPU-bound neighbour's slices, 1.5 ms each: three are 4.5 ms, the fourth passes 5.
        for slice in 0..<3 { poll.yielded(1_500_000, at: now + Int64(slice) * 3_000_000) }
        #expect(poll.window(at: now) == limit, "4.5 ms of the budget's 5 spent")
        let paused = now + 3 * 3_000_000
        poll.yielded(1_500_000, at: paused)
        #expect(poll.window(at: paused) == 0)
        #expect(poll.pausedUntil == paused + poll.pause)
        poll.idleEnded(after: 1_000, foundWhilePolling: false, at: paused + poll.pause - 1)
        #expect(poll.window(at: paused + poll.pause - 1) == 0)
        #expect(poll.window(at: paused + poll.pause) == 0, "nothing grown while paused")
        poll.idleEnded(after: 1_000, foundWhilePolling: false, at: paused + poll.pause)
        #expect(poll.window(at: paused + poll.pause) == IdlePoll.smallestWindow)
    }

    /// The kernel's own threads take the CPU at a yield now and then (softirq and RCU work, some of whose yields
    /// run past 20 µs; memory monitoring, 1–4 ms a few times a second): under the budget, polling goes on. One yield
    /// past 20 µs used to stop it for a second, so under full load it hardly ever ran. Here, a yield of 33 µs every
    /// 10 ms for a second (twice what was seen), and a 4 ms turn in the last period.
    @Test func shortTurnsOfOtherTasks_underTheBudget_keepPolling() {
        var poll = grown(to: 6)
        for turn in 0..<100 { poll.yielded(33_000, at: now + Int64(turn) * 10_000_000) }
        #expect(poll.othersInPeriod == 5 * 33_000, "each period of 50 ms held five of them")
        poll.yielded(4_000_000, at: now + 995_000_000)
        #expect(poll.window(at: now + 995_000_000) == limit)
        #expect(poll.othersInPeriod == 4_165_000)
    }

    @Test func theBudget_startsOverEachPeriod() {
        var poll = grown(to: 6)
        poll.yielded(4_900_000, at: now)
        poll.yielded(4_900_000, at: now + IdlePoll.period)
        #expect(poll.window(at: now + IdlePoll.period) == limit, "each period spent 4.9 ms")
        #expect(poll.othersInPeriod == 4_900_000)
        poll.yielded(100_001, at: now + IdlePoll.period + 1)
        #expect(poll.window(at: now + IdlePoll.period + 1) == 0, "5 ms and a nanosecond in the second period")
    }

    /// A period runs 50 ms from its first counted yield; it does not slide with each one, so a steady trickle
    /// cannot keep one period open and sum it past the budget.
    @Test func aPeriod_endsItsLengthAfterItsFirstYield_notAfterItsLast() {
        var poll = grown(to: 6)
        poll.yielded(3_000_000, at: now)
        poll.yielded(1_900_000, at: now + 30_000_000)
        poll.yielded(2_500_000, at: now + 60_000_000)
        #expect(poll.window(at: now + 60_000_000) == limit)
        #expect(poll.othersInPeriod == 2_500_000)
        #expect(poll.periodStart == now + 60_000_000)
    }

    /// A neighbour still there when polling resumes spends the budget again within a second of the pause's end:
    /// each such pause is twice the last, up to 16 s, so it costs the loop some 5 ms of waits every 16 s rather than
    /// every second. One that comes back later than that starts from a one-second pause again.
    @Test func aNeighbourThatStays_doublesThePause_upToTheLongest_andOneThatLeftStartsOver() {
        var poll = grown(to: 6)
        var at = now
        var pauses: [Int64] = []
        for _ in 0..<7 {
            poll.yielded(poll.busyBudget + 1, at: at)
            pauses.append(poll.pausedUntil - at)
            // Polling resumes when the pause ends, and the neighbour spends the budget again 100 ms later.
            at = poll.pausedUntil + 100_000_000
        }
        let second: Int64 = 1_000_000_000
        #expect(pauses == [1, 2, 4, 8, 16, 16, 16].map { $0 * second })
        // The neighbour left: the budget is next spent two seconds after the last pause ended.
        at = poll.pausedUntil + 2 * poll.pause
        poll.yielded(poll.busyBudget + 1, at: at)
        #expect(poll.pausedUntil - at == second)
        #expect(poll.nextPause == 2 * second)
    }

    @Test func negativeSettings_areTakenAsZero() {
        let poll = IdlePoll(limit: .microseconds(200), longYield: -5, busyBudget: -5, pause: -5)
        #expect(poll.longYield == 0)
        #expect(poll.busyBudget == 0)
        #expect(poll.pause == 0)
        #expect(poll.nextPause == 0)
    }

    @Test func aYieldOfExactlyTheLongYield_isNotCounted_oneNanosecondMoreIs() {
        var poll = grown(to: 6)
        poll.yielded(poll.longYield, at: now)
        #expect(poll.othersInPeriod == 0)
        poll.yielded(poll.longYield + 1, at: now)
        #expect(poll.othersInPeriod == poll.longYield + 1)
        #expect(poll.window(at: now) == limit)
    }

    @Test func oneYieldOverTheWholeBudget_stopsPollingAtOnce() {
        var poll = grown(to: 6)
        poll.yielded(poll.busyBudget + 1, at: now)
        #expect(poll.window(at: now) == 0)
        #expect(poll.othersInPeriod == 0, "the count starts over with the pause")
    }

    @Test func aPauseAtTheEndOfTime_andYieldsAtTheClocksEnds_doNotOverflow() {
        var poll = grown(to: 2)
        poll.yielded(.max, at: .min + 1)
        #expect(poll.window(at: .min + 1) == 0)
        var late = grown(to: 2)
        late.yielded(30_000, at: .max - 20)
        late.yielded(.max, at: .max - 10)
        #expect(late.pausedUntil == .max)
        #expect(late.window(at: .max - 1) == 0)
    }

    /// A clock that went back starts a new period rather than counting into one that never ends; so does one that
    /// went back so far the difference overflows (and would wrap to a small positive span).
    @Test func aClockThatWentBack_startsANewPeriod() {
        var poll = grown(to: 6)
        poll.yielded(3_000_000, at: now)
        poll.yielded(3_000_000, at: now - 1)
        #expect(poll.window(at: now) == limit)
        #expect(poll.othersInPeriod == 3_000_000)
        var wrapped = grown(to: 6)
        wrapped.yielded(3_000_000, at: .max - 1)
        wrapped.yielded(3_000_000, at: .min + 1)
        #expect(wrapped.window(at: .min + 1) == limit)
        #expect(wrapped.periodStart == .min + 1)
    }

    @Test func aZeroLimit_neverPolls() {
        var poll = IdlePoll(limit: .zero)
        for idle in [Int64(0), 1_000, 100_000, 10_000_000] { poll.idleEnded(after: idle, foundWhilePolling: false, at: now) }
        #expect(poll.window(at: now) == 0)
        #expect(poll.limit == 0)
    }

    @Test func theLimit_isClampedToTenMilliseconds_andUnderTheSmallestWindowItIsZero() {
        #expect(IdlePoll(limit: .seconds(5)).limit == 10_000_000)
        #expect(IdlePoll(limit: .seconds(Int64.max)).limit == 10_000_000)
        #expect(IdlePoll(limit: .microseconds(-3)).limit == 0)
        #expect(IdlePoll(limit: .nanoseconds(9_999)).limit == 0)
        #expect(IdlePoll(limit: .microseconds(10)).limit == 10_000)
    }
}
