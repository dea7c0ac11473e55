import Foundation
import Synchronization

/// IANA zones by name, looked up once and cached: `TimeZone(identifier:)` is far too slow for an evaluation path.
public enum TimeZones {
    private static let cache = Mutex<[String: TimeZone]>([:])

    public static func zone(_ name: String?) -> TimeZone? {
        guard let name else { return nil }
        if let cached = cache.withLock({ $0[name] }) { return cached }
        guard let zone = TimeZone(identifier: name) else { return nil }
        cache.withLock { $0[name] = zone }
        return zone
    }

    public static func isValid(_ name: String) -> Bool { zone(name) != nil }

    /// Seconds east of UTC in the zone at that instant (DST included); 0 for UTC or an unknown zone.
    public static func offset(_ name: String?, at instant: Instant) -> Int64 {
        guard let name, name != "UTC", let zone = zone(name) else { return 0 }
        return Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: instant.seconds)))
    }

    /// Local wall-clock fields of an instant in a zone.
    public static func local(_ instant: Instant, in name: String?) -> (hour: Int, isoWeekday: Int, localMilliseconds: Int64) {
        let local = Saturating.add(instant.milliseconds, offset(name, at: instant) * 1000)
        let (days, millisecondOfDay) = CivilDate.split(millisecondsSinceEpoch: local)
        return (Int(millisecondOfDay / 3_600_000), CivilDate.isoWeekday(daysSinceEpoch: days), local)
    }

    /// Adds a calendar period in the zone (months and years by the calendar, DST-correct).
    public static func add(_ period: CalendarPeriod, to instant: Instant, in name: String?) -> Instant {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone(name) ?? TimeZone(identifier: "UTC")!
        var components = DateComponents()
        let (weeks, weeksOverflow) = period.count.multipliedReportingOverflow(by: 7)
        let (quarters, quartersOverflow) = period.count.multipliedReportingOverflow(by: 3)
        switch period.unit {
        case .hour: components.hour = period.count
        case .day: components.day = period.count
        case .week: components.day = weeks
        case .month: components.month = period.count
        case .quarter: components.month = quarters
        case .year: components.year = period.count
        }
        // Rule files bound the count; a period past any calendar simply never ends.
        if weeksOverflow && period.unit == .week || quartersOverflow && period.unit == .quarter { return Instant(milliseconds: .max) }
        let date = Date(timeIntervalSince1970: instant.seconds)
        guard let result = calendar.date(byAdding: components, to: date) else { return Instant(milliseconds: .max) }
        return Instant(milliseconds: Saturating.int64((result.timeIntervalSince1970 * 1000).rounded()))
    }
}
