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
        if name == nil || name == "UTC", let sum = addInUTC(period, to: instant) { return sum }
        return addByCalendar(period, to: instant, in: name)
    }

    /// `add` by Foundation's Gregorian calendar: every zone, every year.
    static func addByCalendar(_ period: CalendarPeriod, to instant: Instant, in name: String?) -> Instant {
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

    /// The first and last days `addInUTC` answers for: 1600-01-01 and 9999-12-31.
    static let utcDays = -135_140...2_932_896

    /// `add` in UTC by arithmetic, where Foundation's calendar cost some 6 k instructions (a throttled trigger asks
    /// on every fire and every delayed re-check). In UTC an hour, a day and a week are fixed lengths, and a month
    /// keeps the day of the month, clamped to the new month's last day (January 31 plus a month is February 28
    /// or 29), as the Gregorian calendar adds them. `nil` (the calendar answers) for a start or an end outside
    /// 1600...9999: Foundation's calendar is Julian before 1582, and far years are not worth a second rule.
    static func addInUTC(_ period: CalendarPeriod, to instant: Instant) -> Instant? {
        guard period.count >= 0, period.count <= CalendarPeriod.maxCount else { return nil }
        let (days, millisecondOfDay) = CivilDate.split(millisecondsSinceEpoch: instant.milliseconds)
        guard utcDays.contains(Int(days)) else { return nil }
        let count = Int64(period.count)
        let fixed: Int64? =
            switch period.unit {
            case .hour: 3_600_000
            case .day: CivilDate.millisecondsPerDay
            case .week: 7 * CivilDate.millisecondsPerDay
            case .month, .quarter, .year: nil
            }
        if let fixed {
            // count ≤ 10 000 weeks: far inside Int64, and the sum is checked against the range below.
            let sum = instant.milliseconds + count * fixed
            return utcDays.contains(Int(CivilDate.split(millisecondsSinceEpoch: sum).days)) ? Instant(milliseconds: sum) : nil
        }
        let months = period.count * (period.unit == .year ? 12 : period.unit == .quarter ? 3 : 1)
        let start = CivilDate(daysSinceEpoch: Int(days))
        let monthIndex = start.year * 12 + (start.month - 1) + months
        let year = monthIndex / 12, month = monthIndex % 12 + 1
        guard year <= 9999 else { return nil }
        let end = CivilDate(year: year, month: month, day: min(start.day, CivilDate.daysIn(month: month, year: year)))
        return Instant(milliseconds: Int64(end.daysSinceEpoch) * CivilDate.millisecondsPerDay + millisecondOfDay)
    }
}
