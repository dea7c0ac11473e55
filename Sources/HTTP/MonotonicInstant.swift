/// A point on a monotonic clock, as whole nanoseconds.
///
/// `ContinuousClock.Instant` is a resilient type of the Concurrency library: outside that library every copy,
/// comparison and optional of one goes through value-witness calls, about 1.5 k instructions a request on the
/// connection path alone (callgrind). This frozen integer is copied and compared inline. The socket layer reads
/// the clock; this module only does arithmetic on the instants it is given, saturating rather than trapping so
/// that no configured timeout, however large, can overflow a deadline.
@frozen
public struct MonotonicInstant: Comparable, Hashable, Sendable {
    public var nanoseconds: Int64

    @inlinable
    public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }

    @inlinable
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.nanoseconds < rhs.nanoseconds }

    @inlinable
    public static func + (instant: Self, duration: Duration) -> Self {
        let (sum, overflow) = instant.nanoseconds.addingReportingOverflow(duration.saturatingNanoseconds)
        return Self(nanoseconds: overflow ? (duration < .zero ? .min : .max) : sum)
    }

    /// Later by `nanoseconds`, saturating at the ends of the range.
    @inlinable
    public func advanced(byNanoseconds nanoseconds: Int64) -> Self {
        let (sum, overflow) = self.nanoseconds.addingReportingOverflow(nanoseconds)
        return Self(nanoseconds: overflow ? (nanoseconds < 0 ? .min : .max) : sum)
    }

    /// Seconds from `earlier` to this instant, for metrics: no `Duration` arithmetic on the request path.
    @inlinable
    public func seconds(since earlier: Self) -> Double {
        let (difference, overflow) = nanoseconds.subtractingReportingOverflow(earlier.nanoseconds)
        return overflow ? (nanoseconds < earlier.nanoseconds ? -Double(Int64.max) : Double(Int64.max)) / 1e9 : Double(difference) / 1e9
    }

    /// Whole milliseconds from `earlier` to this instant, rounded up (a timer armed with it never fires early), in
    /// integer arithmetic: timers are re-armed on every request.
    @inlinable
    public func millisecondsRoundedUp(since earlier: Self) -> Int64 {
        let (difference, overflow) = nanoseconds.subtractingReportingOverflow(earlier.nanoseconds)
        if overflow { return nanoseconds < earlier.nanoseconds ? Int64.min / 1_000_000 : Int64.max / 1_000_000 + 1 }
        let (milliseconds, remainder) = difference.quotientAndRemainder(dividingBy: 1_000_000)
        return remainder > 0 ? milliseconds + 1 : milliseconds
    }

    @inlinable
    public static func - (lhs: Self, rhs: Self) -> Duration {
        let (difference, overflow) = lhs.nanoseconds.subtractingReportingOverflow(rhs.nanoseconds)
        return .nanoseconds(overflow ? (lhs.nanoseconds < rhs.nanoseconds ? Int64.min : Int64.max) : difference)
    }
}

extension Duration {
    /// The duration in whole nanoseconds (sub-nanosecond parts dropped), clamped to `Int64`'s range.
    @inlinable
    public var saturatingNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return seconds < 0 ? .min : .max }
        let (total, carried) = whole.addingReportingOverflow(attoseconds / 1_000_000_000)
        return carried ? (seconds < 0 ? .min : .max) : total
    }
}
