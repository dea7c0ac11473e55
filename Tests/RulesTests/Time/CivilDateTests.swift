import Rules
import Testing

/// The one civil-date algorithm: checked against a day-by-day walk of the calendar, known dates, and round trips
/// over the whole range an instant can hold.
@Suite struct CivilDateTests {
    @Test(arguments: [
        (0, CivilDate(year: 1970, month: 1, day: 1)),
        (-1, CivilDate(year: 1969, month: 12, day: 31)),
        (11_016, CivilDate(year: 2000, month: 2, day: 29)),
        (20_522, CivilDate(year: 2026, month: 3, day: 10)),
        (-719_468, CivilDate(year: 0, month: 3, day: 1)),
        (-719_469, CivilDate(year: 0, month: 2, day: 29)),
        (-719_529, CivilDate(year: -1, month: 12, day: 31)),
        (2_932_896, CivilDate(year: 9999, month: 12, day: 31))
    ])
    func knownDay_convertsBothWays(days: Int, date: CivilDate) {
        #expect(CivilDate(daysSinceEpoch: days) == date)
        #expect(date.daysSinceEpoch == days)
    }

    /// Every day from 801 BC to 801 AD (leap centuries, year 0 and negative years included) follows the one before.
    @Test func dayByDayWalk_acrossNegativeAndLeapYears_matchesTheCalendar() {
        var expected = CivilDate(year: -800, month: 1, day: 1)
        let first = expected.daysSinceEpoch
        for days in first..<(first + 1601 * 366) {
            let date = CivilDate(daysSinceEpoch: days)
            guard date == expected, date.daysSinceEpoch == days else {
                Issue.record("day \(days): \(date), expected \(expected)")
                return
            }
            if expected.day < CivilDate.daysIn(month: expected.month, year: expected.year) {
                expected.day += 1
            } else if expected.month < 12 {
                expected = CivilDate(year: expected.year, month: expected.month + 1, day: 1)
            } else {
                expected = CivilDate(year: expected.year + 1, month: 1, day: 1)
            }
        }
    }

    /// Round trips over every day an instant can hold, in strides, and the ends themselves.
    @Test func roundTrip_overInstantRange_isExact() {
        let (lowest, _) = CivilDate.split(millisecondsSinceEpoch: .min)
        let (highest, _) = CivilDate.split(millisecondsSinceEpoch: .max)
        for days in Array(stride(from: Int(lowest), to: Int(highest), by: 999_983)) + [Int(highest)] {
            let date = CivilDate(daysSinceEpoch: days)
            guard (1...12).contains(date.month), (1...CivilDate.daysIn(month: date.month, year: date.year)).contains(date.day),
                date.daysSinceEpoch == days
            else {
                Issue.record("day \(days) gave \(date), back as \(date.daysSinceEpoch)")
                return
            }
        }
    }

    /// The remembered conversion answers as the conversion does: for the days it holds, two days alternating, days
    /// far apart, the ends of the range (not held: no room in the word), and year 0.
    @Test func remembered_answersAsTheConversion_heldOrNot() {
        let (lowest, _) = CivilDate.split(millisecondsSinceEpoch: .min)
        let (highest, _) = CivilDate.split(millisecondsSinceEpoch: .max)
        let days: [Int64] =
            [20_522, 20_522, 20_523, 20_522, 20_523, 0, -1, 20_522, -719_468, -719_469, 2_932_896, 2_932_897, lowest, highest, lowest, 20_523]
            + Array(stride(from: -800_000, to: 3_000_000, by: 37_813))
        for day in days + days.reversed() {
            #expect(CivilDate.remembered(daysSinceEpoch: day) == CivilDate(daysSinceEpoch: Int(day)), "day \(day)")
        }
    }

    /// Threads converting different days at once each get their own day's date: the remembered day and its date
    /// are read and written as one word, never one thread's day with another's date.
    @Test func remembered_fromManyThreadsAtOnce_neverMixesTwoDays() async {
        let mismatches = await withTaskGroup(of: Int.self) { group in
            for thread in 0..<4 {
                group.addTask {
                    var wrong = 0
                    for step in 0..<20_000 {
                        let day = Int64(20_000 + (step % 3) * 400 + thread)
                        if CivilDate.remembered(daysSinceEpoch: day) != CivilDate(daysSinceEpoch: Int(day)) { wrong += 1 }
                    }
                    return wrong
                }
            }
            return await group.reduce(0, +)
        }
        #expect(mismatches == 0)
    }

    @Test(arguments: [(2000, true), (1900, false), (2024, true), (2026, false), (0, true), (-4, true), (-100, false), (-400, true)])
    func isLeap_followsGregorianRule(year: Int, leap: Bool) {
        #expect(CivilDate.isLeap(year) == leap)
        #expect(CivilDate.daysIn(month: 2, year: year) == (leap ? 29 : 28))
    }

    @Test(arguments: [
        (Int64(0), Int64(0), Int64(0)),
        (-1, -1, 86_399_999),
        (86_400_000, 1, 0),
        (-86_400_000, -1, 0),
        (.max, 106_751_991_167, 25_975_807),
        (.min, -106_751_991_168, 60_424_192)
    ])
    func split_atBoundsAndEnds_neverOverflows(milliseconds: Int64, days: Int64, millisecondOfDay: Int64) {
        let split = CivilDate.split(millisecondsSinceEpoch: milliseconds)
        #expect(split.days == days)
        #expect(split.millisecondOfDay == millisecondOfDay)
    }

    @Test(arguments: [(Int64(0), 4), (-1, 3), (4, 1), (20_522, 2), (Int64.max, 4), (Int64.min, 3)])
    func isoWeekday_ofKnownDays(days: Int64, weekday: Int) {
        #expect(CivilDate.isoWeekday(daysSinceEpoch: days) == weekday)
    }

    @Test(arguments: [
        (CivilDate(year: 2026, month: 3, day: 9), "2026-03-09"),
        (CivilDate(year: 7, month: 1, day: 1), "0007-01-01"),
        (CivilDate(year: -5, month: 12, day: 31), "-0005-12-31"),
        (CivilDate(year: 12345, month: 6, day: 7), "12345-06-07")
    ])
    func description_padsAndSignsYears(date: CivilDate, text: String) {
        #expect(date.description == text)
    }
}
