/// The transport's duration arithmetic, in one place: timers and log fields. (Rules has the same conversions for
/// everything above the transport; the transport imports only HTTP, so it keeps its own two.)
extension Duration {
    private static let attosecondsPerMillisecond: Int128 = 1_000_000_000_000_000

    /// Whole milliseconds, rounded up so a timer armed with it never fires early; clamped to Int64.
    var millisecondsForTimers: Int64 {
        let (milliseconds, remainder) = attoseconds.quotientAndRemainder(dividingBy: Self.attosecondsPerMillisecond)
        return Int64(clamping: remainder > 0 ? milliseconds + 1 : milliseconds)
    }

    /// Whole microseconds, toward zero, clamped to Int (access-log durations).
    var microsecondsForLogs: Int { Int(clamping: attoseconds / 1_000_000_000_000) }
}
