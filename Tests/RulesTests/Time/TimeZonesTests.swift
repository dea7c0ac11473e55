import Rules
import Testing

/// Local wall-clock fields at any instant: hour and ISO weekday, including the ends of the range.
@Suite struct TimeZonesTests {
    @Test(
        arguments: [
            ("2026-03-10T12:00:00Z", nil, 12, 2),
            ("2026-03-10T23:30:00Z", "Europe/Paris", 0, 3),
            ("1969-12-31T23:59:59Z", nil, 23, 3),
            ("1970-01-01T00:00:00Z", "America/New_York", 19, 3)
        ] as [(String, String?, Int, Int)])
    func local_ofKnownInstant(text: String, zone: String?, hour: Int, weekday: Int) {
        let local = TimeZones.local(at(text), in: zone)
        #expect(local.hour == hour)
        #expect(local.isoWeekday == weekday)
    }

    /// Days were counted as `(ms - 86 399 999) / 86 400 000`, which overflowed for the earliest instants.
    @Test(arguments: [Int64.min, Int64.min + 1, Int64.max])
    func local_atEndsOfInstantRange_doesNotTrap(milliseconds: Int64) {
        let local = TimeZones.local(Instant(milliseconds: milliseconds), in: "UTC")
        #expect((0..<24).contains(local.hour))
        #expect((1...7).contains(local.isoWeekday))
    }
}
