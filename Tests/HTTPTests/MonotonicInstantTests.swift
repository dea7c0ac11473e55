import HTTP
import Testing

struct MonotonicInstantTests {
    @Test(arguments: [
        (Duration.seconds(1), Int64(1_000_000_000)),
        (.milliseconds(1500), 1_500_000_000),
        (.nanoseconds(-7), -7),
        (.seconds(Int64.max), Int64.max),
        (.seconds(Int64.min), Int64.min)
    ])
    func durationInNanoseconds_saturatesInsteadOfTrapping(duration: Duration, nanoseconds: Int64) {
        #expect(duration.saturatingNanoseconds == nanoseconds)
    }

    @Test func addingAHugeTimeout_saturatesAtTheEndOfTime() {
        let start = MonotonicInstant(nanoseconds: 5_000_000_000)
        #expect(start + .seconds(Int64.max) == MonotonicInstant(nanoseconds: .max))
        #expect(MonotonicInstant(nanoseconds: .min + 1) + .seconds(-10) == MonotonicInstant(nanoseconds: .min))
        #expect(start + .milliseconds(250) == MonotonicInstant(nanoseconds: 5_250_000_000))
    }

    @Test func differenceOfInstants_isTheirDistance_andSaturates() {
        let early = MonotonicInstant(nanoseconds: 1_000)
        let late = MonotonicInstant(nanoseconds: 3_500)
        #expect(late - early == .nanoseconds(2_500))
        #expect(early - late == .nanoseconds(-2_500))
        #expect(MonotonicInstant(nanoseconds: .max) - MonotonicInstant(nanoseconds: .min) == .nanoseconds(Int64.max))
        #expect(early < late && !(late < early))
    }

    @Test func advancingByNanoseconds_saturatesLikeAddingADuration() {
        let start = MonotonicInstant(nanoseconds: 5_000_000_000)
        #expect(start.advanced(byNanoseconds: 250_000_000) == start + .milliseconds(250))
        #expect(start.advanced(byNanoseconds: .max) == MonotonicInstant(nanoseconds: .max))
        #expect(MonotonicInstant(nanoseconds: .min + 1).advanced(byNanoseconds: -10) == MonotonicInstant(nanoseconds: .min))
    }

    @Test func secondsSince_isTheDistanceInSeconds_andNeverTraps() {
        let early = MonotonicInstant(nanoseconds: 1_000)
        #expect(MonotonicInstant(nanoseconds: 1_501_000).seconds(since: early) == 0.0015)
        #expect(early.seconds(since: MonotonicInstant(nanoseconds: 2_001_000)) == -0.002)
        #expect(MonotonicInstant(nanoseconds: .max).seconds(since: MonotonicInstant(nanoseconds: .min)) == Double(Int64.max) / 1e9)
    }

    @Test func millisecondsRoundedUp_neverUndershoots_andSaturates() {
        let epoch = MonotonicInstant(nanoseconds: 1_000)
        #expect(MonotonicInstant(nanoseconds: 1_000).millisecondsRoundedUp(since: epoch) == 0)
        #expect(MonotonicInstant(nanoseconds: 1_001).millisecondsRoundedUp(since: epoch) == 1)
        #expect(MonotonicInstant(nanoseconds: 2_001_000).millisecondsRoundedUp(since: epoch) == 2)
        #expect(MonotonicInstant(nanoseconds: 2_001_001).millisecondsRoundedUp(since: epoch) == 3)
        #expect(MonotonicInstant(nanoseconds: -999_000).millisecondsRoundedUp(since: epoch) == -1)
        for nanoseconds in [Int64(-5_000_001), 0, 999_999, 7_123_456_789] {
            let later = MonotonicInstant(nanoseconds: nanoseconds)
            #expect(later.millisecondsRoundedUp(since: epoch) == (later - epoch).millisecondsForTimersReference)
        }
        #expect(MonotonicInstant(nanoseconds: .max).millisecondsRoundedUp(since: MonotonicInstant(nanoseconds: .min)) > 9_000_000_000_000)
        #expect(MonotonicInstant(nanoseconds: .min).millisecondsRoundedUp(since: MonotonicInstant(nanoseconds: .max)) < -9_000_000_000_000)
    }

    @Test func timeoutSpans_followEveryDurationWhenSet() {
        var timeouts = ConnectionTimeouts()
        #expect(timeouts.spans.keepAliveIdle == 75_000_000_000 && timeouts.spans.header == 10_000_000_000)
        timeouts.header = .milliseconds(3)
        timeouts.bodyIdle = .seconds(Int64.max)
        timeouts.body = .nanoseconds(9)
        timeouts.keepAliveIdle = .seconds(1)
        timeouts.lingerClose = .milliseconds(-1)
        timeouts.streamHeartbeat = .microseconds(5)
        timeouts.streamStall = .seconds(2)
        let spans = timeouts.spans
        #expect(spans.header == 3_000_000 && spans.bodyIdle == .max && spans.body == 9 && spans.keepAliveIdle == 1_000_000_000)
        #expect(spans.lingerClose == -1_000_000 && spans.streamHeartbeat == 5_000 && spans.streamStall == 2_000_000_000)
    }
}

extension Duration {
    /// Milliseconds rounded up, from the components: what the integer shortcut must agree with.
    fileprivate var millisecondsForTimersReference: Int64 {
        let (seconds, attoseconds) = components
        let (milliseconds, remainder) = attoseconds.quotientAndRemainder(dividingBy: 1_000_000_000_000_000)
        return seconds * 1000 + milliseconds + (remainder > 0 ? 1 : 0)
    }
}
