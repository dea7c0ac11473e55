/// The transport's duration arithmetic, in one place: timers and log fields. (Rules has the same conversions for
/// everything above the transport; the transport imports only HTTP, so it keeps its own two.)
extension Duration {
    private static let attosecondsPerMillisecond: Int128 = 1_000_000_000_000_000
    /// Below this magnitude (about ±292 years) `components` holds the value: `Int64` arithmetic only, instead of the
    /// standard library's generic `Int128` conversions, which cost several times more on every request.
    private static let fastPathBound: Int128 = 9_000_000_000 * 1_000_000_000_000_000_000

    /// Whole milliseconds, rounded up so a timer armed with it never fires early; clamped to Int64.
    var millisecondsForTimers: Int64 {
        let value = attoseconds
        if value < Self.fastPathBound, value > -Self.fastPathBound {
            let (seconds, attoseconds) = components
            let (milliseconds, remainder) = attoseconds.quotientAndRemainder(dividingBy: 1_000_000_000_000_000)
            return seconds * 1000 + milliseconds + (remainder > 0 ? 1 : 0)
        }
        let (milliseconds, remainder) = value.quotientAndRemainder(dividingBy: Self.attosecondsPerMillisecond)
        return Int64(clamping: remainder > 0 ? milliseconds + 1 : milliseconds)
    }

    /// Whole microseconds, toward zero, clamped to Int (access-log durations).
    var microsecondsForLogs: Int {
        let value = attoseconds
        if value < Self.fastPathBound, value > -Self.fastPathBound {
            let (seconds, attoseconds) = components
            return Int(seconds) * 1_000_000 + Int(attoseconds / 1_000_000_000_000)
        }
        return Int(clamping: value / 1_000_000_000_000)
    }
}
