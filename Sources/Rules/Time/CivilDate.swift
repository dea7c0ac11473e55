import Synchronization

/// A day of the proleptic Gregorian calendar, and the one conversion between days since 1970-01-01 and
/// year-month-day that the rest of the code uses (timestamps, time zones).
///
/// The conversions are Howard Hinnant's `days_from_civil` and `civil_from_days`
/// (https://howardhinnant.github.io/date_algorithms.html): exact for every day an `Instant` can hold, negative
/// years included (year 0 is 1 BC, as in ISO 8601).
public struct CivilDate: Sendable, Hashable, CustomStringConvertible {
    public var year: Int
    /// 1...12.
    public var month: Int
    /// 1...31.
    public var day: Int

    public static let millisecondsPerDay: Int64 = 86_400_000

    public init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// The date `days` days after 1970-01-01 (before it when negative); exact for any day an `Instant` can hold
    /// (|days| < 2^37).
    public init(daysSinceEpoch days: Int) {
        // Shifted so that eras (400 years, 146 097 days) start on 0000-03-01: the leap day ends a year.
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    }

    /// The same date, remembered for the last two days asked: timestamps are written near the clock's day, and
    /// the conversion's eight divisions were about half the cost of writing one. A donation's answer writes two
    /// dates, the first donation's and the last one's, most often of two different days: with one day remembered,
    /// each would have pushed the other out. Any thread may ask: each remembered day and its date are one atomic
    /// word, so a reader sees one conversion whole, or a day that does not match and converts again. Years outside
    /// 0...9999 (which the word has no room for) are converted each time.
    public static func remembered(daysSinceEpoch days: Int64) -> CivilDate {
        let latest = latestConverted.load(ordering: .relaxed)
        if let date = unpack(latest, days: days) { return date }
        let earlier = earlierConverted.load(ordering: .relaxed)
        if let date = unpack(earlier, days: days) { return date }
        let date = CivilDate(daysSinceEpoch: Int(days))
        if (0...9999).contains(date.year), let narrow = Int32(exactly: days) {
            // Layout: the day's 32 bits, then the year (16 bits), the month and the day of the month (8 each).
            let packed =
                UInt64(UInt32(bitPattern: narrow)) << 32 | UInt64(date.year) << 16 | UInt64(date.month) << 8 | UInt64(date.day)
            earlierConverted.store(latest, ordering: .relaxed)
            latestConverted.store(packed, ordering: .relaxed)
        }
        return date
    }

    /// The date in `word` when it holds `days`; a month of 0 is the empty word.
    @inline(__always)
    private static func unpack(_ word: UInt64, days: Int64) -> CivilDate? {
        guard word & 0xFF00 != 0, Int64(Int32(truncatingIfNeeded: word >> 32)) == days else { return nil }
        return CivilDate(year: Int(word >> 16 & 0xFFFF), month: Int(word >> 8 & 0xFF), day: Int(word & 0xFF))
    }

    private static let latestConverted = Atomic<UInt64>(0)
    private static let earlierConverted = Atomic<UInt64>(0)

    /// Days from 1970-01-01 to this date (negative before it).
    public var daysSinceEpoch: Int {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// ISO 8601 weekday: 1 is Monday, 7 is Sunday.
    public var isoWeekday: Int { Self.isoWeekday(daysSinceEpoch: Int64(daysSinceEpoch)) }

    /// `2026-03-10`; years outside 0...9999 as ISO 8601 expanded years (`-0005`, `12345`).
    public var description: String {
        let yearText = year < 0 ? "-" + Self.pad(-year, 4) : Self.pad(year, 4)
        return yearText + "-" + Self.pad(month, 2) + "-" + Self.pad(day, 2)
    }

    public static func isLeap(_ year: Int) -> Bool { (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 }

    /// 28...31; `month` must be 1...12.
    public static func daysIn(month: Int, year: Int) -> Int {
        [31, isLeap(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
    }

    /// Whole days since the epoch (rounded toward the past) and the millisecond within that day (0..<86 400 000).
    /// Remainders only: `days × 86 400 000` overflows Int64 near its ends, so it is never computed.
    public static func split(millisecondsSinceEpoch milliseconds: Int64) -> (days: Int64, millisecondOfDay: Int64) {
        let remainder = milliseconds % millisecondsPerDay
        let days = milliseconds / millisecondsPerDay
        return remainder < 0 ? (days - 1, remainder + millisecondsPerDay) : (days, remainder)
    }

    /// ISO weekday of the day `days` after 1970-01-01, a Thursday (4).
    public static func isoWeekday(daysSinceEpoch days: Int64) -> Int { Int((days % 7 + 10) % 7) + 1 }

    /// Decimal digits, zero-padded on the left to `width`.
    static func pad(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }
}
