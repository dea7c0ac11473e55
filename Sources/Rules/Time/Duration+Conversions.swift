/// `Duration` as the numbers the rest of the code needs: seconds as a double (rates, metrics), whole milliseconds
/// or microseconds (logs, timers). Written once here instead of at every use, and clamped instead of trapping: a
/// `Duration` holds 128 bits of attoseconds, far more than an `Int64` of milliseconds.
extension Duration {
    private static let attosecondsPerSecond: Int128 = 1_000_000_000_000_000_000
    private static let attosecondsPerMillisecond: Int128 = 1_000_000_000_000_000
    private static let attosecondsPerMicrosecond: Int128 = 1_000_000_000_000

    /// Seconds, fractions included.
    public var inSeconds: Double {
        // Whole seconds and the fraction converted apart, so that long durations keep their sub-second part.
        let (seconds, fraction) = attoseconds.quotientAndRemainder(dividingBy: Self.attosecondsPerSecond)
        return Double(seconds) + Double(fraction) / 1e18
    }

    /// Whole milliseconds, toward zero, clamped to Int64.
    public var inMilliseconds: Int64 { Int64(clamping: attoseconds / Self.attosecondsPerMillisecond) }

    /// Whole milliseconds, toward the future (a timer armed with it never fires early), clamped to Int64.
    public var inMillisecondsRoundedUp: Int64 {
        let (milliseconds, remainder) = attoseconds.quotientAndRemainder(dividingBy: Self.attosecondsPerMillisecond)
        return Int64(clamping: remainder > 0 ? milliseconds + 1 : milliseconds)
    }

    /// Whole microseconds, toward zero, clamped to Int64.
    public var inMicroseconds: Int64 { Int64(clamping: attoseconds / Self.attosecondsPerMicrosecond) }
}
