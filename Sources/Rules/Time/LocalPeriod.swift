/// Local calendar periods (hours, days, ISO weeks, months, quarters, years) numbered consecutively in a time zone,
/// for statistics bucketed "per day in the user's zone" (docs/rules.md, "history").
///
/// An instant's period is read from its local wall-clock time: a 23-hour or 25-hour DST day is one day, the hour
/// a spring-forward skips is a period no instant falls in, and the hour a fall-back repeats is one period two real
/// hours long. Everything saturates: instants at the ends of the range give periods at the ends, never a trap.
public struct LocalPeriod: Sendable, Hashable {
    public let unit: CalendarPeriod.Unit

    public init(_ unit: CalendarPeriod.Unit) {
        self.unit = unit
    }

    /// Fixed lengths that turn a duration into a number of periods: a month counts 30 days, a quarter 90, a year 365.
    public var nominalMilliseconds: Milliseconds {
        switch unit {
        case .hour: return 3_600_000
        case .day: return 86_400_000
        case .week: return 7 * 86_400_000
        case .month: return 30 * 86_400_000
        case .quarter: return 90 * 86_400_000
        case .year: return 365 * 86_400_000
        }
    }

    /// The number of the local period holding `instant` in `zone` (consecutive: the next period is one more).
    public func index(of instant: Instant, in zone: String?) -> Int64 {
        index(localMilliseconds: TimeZones.local(instant, in: zone).localMilliseconds)
    }

    /// The same from the instant's local wall-clock time (milliseconds since 1970 read as UTC), for a caller that
    /// knows the zone's offset already (`ZoneOffsetCursor`).
    func index(localMilliseconds local: Int64) -> Int64 {
        let (days, millisecondOfDay) = CivilDate.split(millisecondsSinceEpoch: local)
        switch unit {
        case .hour: return days * 24 + millisecondOfDay / 3_600_000
        case .day: return days
        // Day 0 (1970-01-01) is a Thursday; shifting by 3 makes weeks start on Mondays (ISO 8601).
        case .week: return Self.floorDivide(days + 3, 7)
        case .month, .quarter, .year:
            let date = CivilDate(daysSinceEpoch: Int(days))
            let months = Int64(date.year) * 12 + Int64(date.month - 1)
            if unit == .month { return months }
            return unit == .quarter ? Self.floorDivide(months, 3) : Int64(date.year)
        }
    }

    /// The first instant of local period `index` in `zone`: its local start converted with the offset in force
    /// there. When DST skips the local start (a spring-forward at midnight) the period begins at the transition.
    public func start(of index: Int64, in zone: String?) -> Instant {
        let local = localStart(of: index)
        // The offsets a day before and after the local start: every real zone changes offset at most once in that span.
        let before = TimeZones.offset(zone, at: Instant(milliseconds: Saturating.subtract(local, 86_400_000))) * 1000
        let after = TimeZones.offset(zone, at: Instant(milliseconds: Saturating.add(local, 86_400_000))) * 1000
        var best: Instant?
        for offset in [before, after] {
            let candidate = Instant(milliseconds: Saturating.subtract(local, offset))
            guard self.index(of: candidate, in: zone) >= index else { continue }
            if best.map({ candidate < $0 }) ?? true { best = candidate }
        }
        // Neither reading lands in the period only in a gap at the start: the transition itself (after's side) begins it.
        return best ?? Instant(milliseconds: Saturating.subtract(local, min(before, after)))
    }

    /// Local milliseconds (wall clock as if UTC) at which period `index` begins.
    private func localStart(of index: Int64) -> Int64 {
        switch unit {
        case .hour: return Saturating.multiply(index, 3_600_000)
        case .day: return Saturating.multiply(index, 86_400_000)
        case .week: return Saturating.multiply(Saturating.subtract(Saturating.multiply(index, 7), 3), 86_400_000)
        case .month, .quarter, .year:
            // Bounded to the years an Instant can hold (about ±292 million), so the civil conversion stays exact.
            let months: Int64
            switch unit {
            case .month: months = index
            case .quarter: months = Saturating.multiply(index, 3)
            default: months = Saturating.multiply(index, 12)
            }
            let clamped = min(max(months, -3_600_000_000), 3_600_000_000)
            let year = Self.floorDivide(clamped, 12)
            let month = clamped - year * 12 + 1
            let days = CivilDate(year: Int(year), month: Int(month), day: 1).daysSinceEpoch
            return Saturating.multiply(Int64(days), 86_400_000)
        }
    }

    static func floorDivide(_ value: Int64, _ divisor: Int64) -> Int64 {
        let quotient = value / divisor
        return value % divisor < 0 ? quotient - 1 : quotient
    }
}
