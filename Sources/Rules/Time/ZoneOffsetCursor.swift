import Foundation

/// A zone's offset from UTC for a run of instants, looked up again only when an instant falls outside the span
/// the last lookup holds for: from that instant to the zone's next transition (Foundation's
/// `nextDaylightSavingTimeTransition`, which reports every change of offset, standard ones included: checked
/// every half hour from 2000 to 2030 in two dozen zones, Samoa's skipped day and Moscow's changes among them).
///
/// A history statistic buckets every donation of its window by local period, and each lookup by zone name took
/// the zone cache's lock, hashed the name and asked Foundation: a thousand donations in Europe/Paris cost some
/// 110 µs an evaluation, twice per write that reaches the flag. In time order the instants mostly share a span, so
/// a window costs a lookup or two. Exact in any order: an instant before the span is looked up afresh.
struct ZoneOffsetCursor {
    /// `nil` for UTC and for a name no zone has, as `TimeZones.offset` reads them.
    private let zone: TimeZone?
    private var offsetMilliseconds: Int64 = 0
    /// The span `offsetMilliseconds` holds for, `from` included, `until` not; empty until the first lookup.
    private var from = Instant(milliseconds: .max)
    private var until = Instant(milliseconds: .min)

    init(zone name: String?) {
        zone = name == nil || name == "UTC" ? nil : TimeZones.zone(name)
    }

    /// The instant's local wall-clock time as milliseconds since 1970 read as UTC: what
    /// `TimeZones.local(_:in:).localMilliseconds` gives for it.
    mutating func localMilliseconds(_ instant: Instant) -> Int64 {
        guard let zone else { return instant.milliseconds }
        // Past 2^53 ms (about the year 287 000) a `Date` no longer holds every millisecond, so the last one before
        // a transition reads as the transition; past Foundation's calendar range (about the year 506 000) it reports
        // no transition while its offsets still change. Out there every instant is looked up on its own.
        guard instant.milliseconds.magnitude < Self.exactLimit else {
            let offset = Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: instant.seconds))) * 1000
            return Saturating.add(instant.milliseconds, offset)
        }
        if instant < from || instant >= until {
            let date = Date(timeIntervalSince1970: instant.seconds)
            offsetMilliseconds = Int64(zone.secondsFromGMT(for: date)) * 1000
            from = instant
            until = zone.nextDaylightSavingTimeTransition(after: date).map(Self.instant) ?? Instant(milliseconds: .max)
        }
        return Saturating.add(instant.milliseconds, offsetMilliseconds)
    }

    /// Milliseconds a `Date` (a `Double` of seconds) holds exactly, and past which spans are not kept.
    private static let exactLimit: UInt64 = 1 << 53

    /// A transition's date as an instant, rounded toward the past: an instant in its last millisecond before the
    /// change looks it up again, which is exact, where rounding up could lend it the offset after the change.
    private static func instant(_ date: Date) -> Instant {
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded(.down)
        guard milliseconds.isFinite, milliseconds > -9.2e18, milliseconds < 9.2e18 else {
            return Instant(milliseconds: milliseconds > 0 ? .max : .min)
        }
        return Instant(milliseconds: Int64(milliseconds))
    }
}
