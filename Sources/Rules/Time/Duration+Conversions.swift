/// `Duration` as the numbers the rest of the code needs: seconds as a double (rates, metrics), whole milliseconds
/// or microseconds (logs, timers). Written once here instead of at every use, and clamped instead of trapping: a
/// `Duration` holds 128 bits of attoseconds, far more than an `Int64` of milliseconds.
extension Duration {
    private static let attosecondsPerSecond: Int128 = 1_000_000_000_000_000_000
    private static let attosecondsPerMillisecond: Int128 = 1_000_000_000_000_000
    private static let attosecondsPerMicrosecond: Int128 = 1_000_000_000_000
    /// Below this magnitude (about ±292 years) `components` holds the value and whole units fit an `Int64`: the
    /// conversions take that path, with `Int64` arithmetic only. Converting the `Int128` itself goes through the
    /// standard library's generic integer conversions, which cost several times more on every request and timer.
    private static let fastPathBound: Int128 = 9_000_000_000 * 1_000_000_000_000_000_000

    private var fastComponents: (seconds: Int64, attoseconds: Int64)? {
        let value = attoseconds
        guard value < Self.fastPathBound, value > -Self.fastPathBound else { return nil }
        return components
    }

    /// Seconds, fractions included.
    public var inSeconds: Double {
        if let (seconds, attoseconds) = fastComponents { return Double(seconds) + Double(attoseconds) / 1e18 }
        // Whole seconds and the fraction converted apart, so that long durations keep their sub-second part.
        let (seconds, fraction) = attoseconds.quotientAndRemainder(dividingBy: Self.attosecondsPerSecond)
        return Double(seconds) + Double(fraction) / 1e18
    }

    /// Whole milliseconds, toward zero, clamped to Int64.
    public var inMilliseconds: Int64 {
        if let (seconds, attoseconds) = fastComponents { return seconds * 1000 + attoseconds / 1_000_000_000_000_000 }
        return Int64(clamping: attoseconds / Self.attosecondsPerMillisecond)
    }

    /// Whole milliseconds, toward the future (a timer armed with it never fires early), clamped to Int64.
    public var inMillisecondsRoundedUp: Int64 {
        if let (seconds, attoseconds) = fastComponents {
            let (milliseconds, remainder) = attoseconds.quotientAndRemainder(dividingBy: 1_000_000_000_000_000)
            return seconds * 1000 + milliseconds + (remainder > 0 ? 1 : 0)
        }
        let (milliseconds, remainder) = attoseconds.quotientAndRemainder(dividingBy: Self.attosecondsPerMillisecond)
        return Int64(clamping: remainder > 0 ? milliseconds + 1 : milliseconds)
    }

    /// Whole microseconds, toward zero, clamped to Int64.
    public var inMicroseconds: Int64 {
        if let (seconds, attoseconds) = fastComponents { return seconds * 1_000_000 + attoseconds / 1_000_000_000_000 }
        return Int64(clamping: attoseconds / Self.attosecondsPerMicrosecond)
    }
}
