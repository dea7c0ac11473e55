import Foundation
import TestRandom
import Testing

@testable import Rules

/// `ZoneOffsetCursor` gives every instant the local time `TimeZones.local` gives it, whatever the order the
/// instants come in, at transitions too; it only looks the offset up less often.
@Suite struct ZoneOffsetCursorTests {
    static let zones: [String?] = [
        nil, "UTC", "Europe/Paris", "Australia/Lord_Howe", "America/St_Johns", "Pacific/Apia", "Europe/Moscow",
        "Africa/Casablanca", "Asia/Kolkata", "No/Such_Zone"
    ]

    static func expectSame(_ instants: [Instant], in zone: String?) {
        var cursor = ZoneOffsetCursor(zone: zone)
        for instant in instants {
            #expect(cursor.localMilliseconds(instant) == TimeZones.local(instant, in: zone).localMilliseconds, "\(zone ?? "nil") \(instant)")
        }
    }

    @Test(arguments: zones)
    func ascendingAndShuffledInstants_readAsTimeZonesReadsThem(zone: String?) {
        var random = SplitMix(seed: 11)
        // 2009 to 2027: Samoa's skipped day (2011-12-30), Moscow's permanent offsets (2011, 2014), Casablanca's
        // Ramadan suspensions, and every yearly DST change between.
        let start: Int64 = 1_230_768_000_000
        let span: Int64 = 18 * 365 * 86_400_000
        var instants = (0..<3_000).map { _ in Instant(milliseconds: start + Int64(random.next(upTo: Int(span)))) }
        instants.sort()
        Self.expectSame(instants, in: zone)
        var shuffled = instants
        for index in shuffled.indices.reversed() { shuffled.swapAt(index, random.next(upTo: index + 1)) }
        Self.expectSame(shuffled, in: zone)
    }

    /// The millisecond either side of each transition in a year, in order: the span a lookup holds for ends at
    /// the transition, exclusive.
    @Test(arguments: ["Europe/Paris", "Australia/Lord_Howe", "America/St_Johns", "Pacific/Apia"])
    func instantsAroundEachTransition_takeTheOffsetOnTheirSide(zone name: String) throws {
        let zone = try #require(TimeZone(identifier: name))
        var date = Date(timeIntervalSince1970: 1_293_840_000) // 2011-01-01
        var instants: [Instant] = []
        for _ in 0..<6 {
            guard let transition = zone.nextDaylightSavingTimeTransition(after: date) else { break }
            let milliseconds = Int64(transition.timeIntervalSince1970 * 1000)
            instants += [-1, 0, 1].map { Instant(milliseconds: milliseconds + $0) }
            date = transition
        }
        #expect(instants.count >= 6)
        Self.expectSame(instants, in: name)
    }

    /// Beyond what a `Date` holds to the millisecond, and beyond Foundation's calendar range, where it reports no
    /// transitions while its offsets still change: each instant is read as `TimeZones.local` reads it. Both
    /// failed when the cursor kept spans there (the offset an hour off).
    @Test func instantsBeyondExactDates_readAsTimeZonesReadsThem() {
        let transition: Int64 = 9_404_925_728_400_000 // a Paris transition in the year 299 999 or so
        Self.expectSame(
            [transition - 30 * 86_400_000, transition - 1, transition, transition + 1].map { Instant(milliseconds: $0) },
            in: "Europe/Paris")
        var random = SplitMix(seed: 5)
        // From about the year 504 000, past the end of Foundation's calendar range (about 1.59e16 ms).
        let start: Int64 = 15_900_000_000_000_000
        var instants = (0..<400).map { _ in Instant(milliseconds: start + Int64(random.next(upTo: 1 << 46))) }
        instants.append(Instant(milliseconds: 15_928_168_815_172_866))
        instants.sort()
        Self.expectSame(instants, in: "Europe/Paris")
    }

    @Test func instantsAtTheEndsOfTheRange_doNotTrap() {
        Self.expectSame([Instant(milliseconds: .min), Instant(milliseconds: 0), Instant(milliseconds: .max)], in: "Europe/Paris")
        Self.expectSame([Instant(milliseconds: .max), Instant(milliseconds: .min)], in: "Australia/Lord_Howe")
    }
}
