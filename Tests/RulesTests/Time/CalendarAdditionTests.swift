import TestRandom
import Testing

@testable import Rules

/// Adding a calendar period in UTC by arithmetic gives exactly what Foundation's Gregorian calendar gives.
@Suite struct CalendarAdditionTests {
    /// Random instants over the whole range the arithmetic answers for, month ends and leap days made likely,
    /// every unit, counts from 0 to the largest a rule file may hold.
    @Test func addInUTC_agreesWithTheCalendar_overRandomInstantsAndPeriods() {
        var generator = SplitMix(seed: 2026)
        var answered = 0
        for round in 0..<20_000 {
            let days = TimeZones.utcDays.lowerBound + generator.next(upTo: TimeZones.utcDays.count)
            var date = CivilDate(daysSinceEpoch: days)
            if round % 3 == 0 { date.day = CivilDate.daysIn(month: date.month, year: date.year) }
            if round % 7 == 0 { date = CivilDate(year: date.year - date.year % 4, month: 2, day: 29) }
            let instant = Instant(
                milliseconds: Int64(date.daysSinceEpoch) * CivilDate.millisecondsPerDay + Int64(generator.next(upTo: 86_400_000)))
            let unit = CalendarPeriod.Unit.allCases[generator.next(upTo: CalendarPeriod.Unit.allCases.count)]
            let count = [0, 1, 2, 3, 11, 12, 13, 59, 400, CalendarPeriod.maxCount][generator.next(upTo: 10)]
            let period = CalendarPeriod(unit: unit, count: count)
            guard let sum = TimeZones.addInUTC(period, to: instant) else { continue }
            answered += 1
            #expect(sum == TimeZones.addByCalendar(period, to: instant, in: nil), "\(period) after \(instant)")
        }
        #expect(answered > 15_000)
    }

    @Test(
        arguments: [
            ("2026-01-31T10:00:00Z", "1 month", "2026-02-28T10:00:00Z"),
            ("2028-01-31T10:00:00Z", "1 month", "2028-02-29T10:00:00Z"),
            ("2028-02-29T00:00:01Z", "1 year", "2029-02-28T00:00:01Z"),
            ("2025-11-30T23:59:59.999Z", "quarter", "2026-02-28T23:59:59.999Z"),
            ("2026-03-29T00:30:00Z", "1 day", "2026-03-30T00:30:00Z"),
            ("1600-01-01T00:00:00Z", "1 week", "1600-01-08T00:00:00Z")
        ] as [(String, String, String)])
    func addInUTC_atMonthEndsAndLeapDays(start: String, period: String, expected: String) {
        #expect(TimeZones.addInUTC(CalendarPeriod(text: period)!, to: at(start)) == at(expected))
        #expect(TimeZones.add(CalendarPeriod(text: period)!, to: at(start), in: nil) == at(expected))
    }

    /// Before 1600 and past 9999 the calendar answers: Foundation's is Julian before 1582.
    @Test func addInUTC_outsideItsYears_leavesItToTheCalendar() {
        #expect(TimeZones.addInUTC(CalendarPeriod(unit: .day, count: 1), to: at("1599-12-31T00:00:00Z")) == nil)
        #expect(TimeZones.addInUTC(CalendarPeriod(unit: .year, count: 1), to: at("9999-06-01T00:00:00Z")) == nil)
        #expect(TimeZones.addInUTC(CalendarPeriod(unit: .day, count: 1), to: Instant(milliseconds: .min)) == nil)
        #expect(TimeZones.addInUTC(CalendarPeriod(unit: .year, count: 1), to: Instant(milliseconds: .max)) == nil)
        #expect(TimeZones.addInUTC(CalendarPeriod(unit: .year, count: -1), to: at("2026-06-01T00:00:00Z")) == nil)
    }
}
