/// RFC 3339 / ISO 8601 timestamps without Foundation: `2026-01-01T09:00:00Z`, fractions, offsets, or a bare date
/// (midnight UTC).
public enum ISO8601 {
    public static func parse(_ text: String) -> Instant? {
        let bytes = Array(text.utf8)
        var index = 0
        func number(_ digits: Int) -> Int? {
            guard index + digits <= bytes.count else { return nil }
            var value = 0
            for offset in 0..<digits {
                let byte = bytes[index + offset]
                guard byte >= 48, byte <= 57 else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            index += digits
            return value
        }
        func expect(_ char: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == char else { return false }
            index += 1
            return true
        }
        guard let year = number(4), expect(45), let month = number(2), expect(45), let day = number(2),
            (1...12).contains(month), (1...CivilDate.daysIn(month: month, year: year)).contains(day)
        else { return nil }
        let days = CivilDate(year: year, month: month, day: day).daysSinceEpoch
        if index == bytes.count { return Instant(milliseconds: Int64(days) * CivilDate.millisecondsPerDay) }
        guard expect(84) || expect(116) || expect(32) else { return nil }
        guard let hour = number(2), expect(58), let minute = number(2), expect(58), let second = number(2),
            hour < 24, minute < 60, second < 61
        else { return nil }
        var millis = 0
        if expect(46) {
            var scale = 100
            let start = index
            while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 {
                millis += Int(bytes[index] - 48) * scale
                scale /= 10
                index += 1
            }
            guard index > start else { return nil }
        }
        var offsetSeconds = 0
        if expect(90) || expect(122) {
        } else if index < bytes.count, bytes[index] == 43 || bytes[index] == 45 {
            let sign = bytes[index] == 43 ? 1 : -1
            index += 1
            guard let offsetHours = number(2), expect(58), let offsetMinutes = number(2), offsetHours < 24, offsetMinutes < 60
            else { return nil }
            offsetSeconds = sign * (offsetHours * 3600 + offsetMinutes * 60)
        } else {
            return nil
        }
        guard index == bytes.count else { return nil }
        let seconds = Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + min(second, 59)) - Int64(offsetSeconds)
        return Instant(milliseconds: seconds * 1000 + Int64(millis))
    }

    /// How a formatted timestamp shows milliseconds.
    public enum Fraction: Sendable {
        /// `.SSS` only when the instant has milliseconds: `2026-01-01T09:00:00Z` (API answers).
        case whenNonZero
        /// Always `.SSS`: `2026-01-01T09:00:00.000Z` (log lines, which then line up).
        case milliseconds
    }

    /// `2026-01-01T09:00:00Z` in UTC. Never traps: the ends of the Int64 range come out as expanded years.
    public static func format(_ instant: Instant, fraction: Fraction = .whenNonZero) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(24)
        write(instant, fraction: fraction, into: &out)
        return String(decoding: out, as: UTF8.self)
    }
}
