/// A point in time with millisecond resolution, as milliseconds since 1970-01-01T00:00:00Z. The rules engine
/// never reads a clock: every instant it uses is handed in.
public struct Instant: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var milliseconds: Int64

    public init(milliseconds: Int64) {
        self.milliseconds = milliseconds
    }

    /// Seconds since the epoch, saturating at the ends of the range (NaN reads as the epoch): a double can hold
    /// values no instant can, and converting those must not trap.
    public init(seconds: Double) {
        milliseconds = Saturating.milliseconds(fromSeconds: seconds)
    }

    public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.milliseconds < rhs.milliseconds }

    // Saturating: instants and durations can come from clients and files (dates far in the future or past, stored
    // instants, long durations), and no sum of them may trap. The ends of the range stand for "never" and "always".
    @inlinable
    public static func + (lhs: Instant, rhs: Milliseconds) -> Instant { Instant(milliseconds: Saturating.add(lhs.milliseconds, rhs)) }
    @inlinable
    public static func - (lhs: Instant, rhs: Milliseconds) -> Instant { Instant(milliseconds: Saturating.subtract(lhs.milliseconds, rhs)) }
    @inlinable
    public static func - (lhs: Instant, rhs: Instant) -> Milliseconds { Saturating.subtract(lhs.milliseconds, rhs.milliseconds) }

    /// Seconds since the epoch, fractions included (for `Date` and time-zone lookups).
    public var seconds: Double { Double(milliseconds) / 1000 }

    /// Whole seconds, rounded toward the past.
    public var unixSeconds: Int64 {
        let seconds = milliseconds / 1000
        return milliseconds % 1000 < 0 ? seconds - 1 : seconds
    }

    public var description: String { ISO8601.format(self) }
}

/// A length of time in milliseconds.
public typealias Milliseconds = Int64
