import Rules
import Testing

/// The one duration arithmetic: seconds as a double, whole milliseconds and microseconds, clamped at the ends.
@Suite struct DurationConversionTests {
    @Test(arguments: [
        (Duration.zero, 0.0, Int64(0), Int64(0), Int64(0)),
        (.milliseconds(1500), 1.5, 1500, 1500, 1_500_000),
        (.nanoseconds(1), 1e-9, 0, 1, 0),
        (.nanoseconds(-1), -1e-9, 0, 0, 0),
        (.microseconds(-1500), -0.0015, -1, -1, -1500),
        (.microseconds(2001), 0.002001, 2, 3, 2001),
        (.seconds(86_400), 86_400, 86_400_000, 86_400_000, 86_400_000_000)
    ])
    func conversions_ofKnownDurations(duration: Duration, seconds: Double, milliseconds: Int64, roundedUp: Int64, microseconds: Int64) {
        #expect(duration.inSeconds == seconds)
        #expect(duration.inMilliseconds == milliseconds)
        #expect(duration.inMillisecondsRoundedUp == roundedUp)
        #expect(duration.inMicroseconds == microseconds)
    }

    /// A `Duration` spans 2^127 attoseconds; past Int64 the whole units clamp instead of trapping.
    @Test(arguments: [Int128.max, Int128.min, Int128(Int64.max) * 1_000_000_000_000_000 + 1])
    func conversions_pastInt64_clamp(attoseconds: Int128) {
        let duration = Duration(attoseconds: attoseconds)
        let end: Int64 = attoseconds > 0 ? .max : .min
        #expect(duration.inMilliseconds == end)
        #expect(duration.inMillisecondsRoundedUp == end)
        #expect(duration.inMicroseconds == end)
        #expect(duration.inSeconds.isFinite)
        #expect((duration.inSeconds > 0) == (attoseconds > 0))
    }

    /// Long durations keep their fraction: whole seconds and the fraction are converted apart.
    @Test func inSeconds_ofLongDuration_keepsMilliseconds() {
        #expect(Duration.seconds(1_000_000) + .milliseconds(250) == .milliseconds(1_000_000_250))
        #expect((Duration.seconds(1_000_000) + .milliseconds(250)).inSeconds == 1_000_000.25)
    }
}
