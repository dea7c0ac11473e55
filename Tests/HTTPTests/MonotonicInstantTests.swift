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
}
