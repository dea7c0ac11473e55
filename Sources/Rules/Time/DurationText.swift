/// Durations (`"90s"`, `"15m"`, `"2h"`, `"3d"`, `"1w"` or a number of seconds) and calendar periods
/// (`"month"`, `"2 weeks"`, `"quarter"`) as written in rules (DESIGN §3.2).
public enum DurationText {
    /// The longest duration a rule may write: 10^12 s, about 31 700 years. Longer ones would only be typos, and the
    /// bound keeps every instant ± duration far inside Int64 milliseconds.
    public static let maxSeconds: Int64 = 1_000_000_000_000

    /// Milliseconds for a duration; `nil` when malformed, negative or not below `maxSeconds`. A day is a fixed 86 400 s.
    public static func parse(_ value: JSONValue) -> Milliseconds? {
        switch value {
        case .number(let number):
            guard number.double >= 0, number.double < Double(maxSeconds) else { return nil }
            return Milliseconds((number.double * 1000).rounded())
        case .string(let text):
            guard let unit = text.last, let count = Int64(text.dropLast()), count >= 0, text.first != "+" else { return nil }
            let scale: Int64
            switch unit {
            case "s": scale = 1
            case "m": scale = 60
            case "h": scale = 3600
            case "d": scale = 86_400
            case "w": scale = 604_800
            default: return nil
            }
            guard count <= maxSeconds / scale, count * scale < maxSeconds else { return nil }
            return count * scale * 1000
        default:
            return nil
        }
    }
}

/// A calendar period added in a time zone: months and years follow the calendar, not a fixed length.
public struct CalendarPeriod: Sendable, Hashable, CustomStringConvertible {
    public enum Unit: String, Sendable, CaseIterable {
        case hour, day, week, month, quarter, year
    }

    public let unit: Unit
    public let count: Int

    /// The largest count a period may have: "10000 years" is already far past any throttle.
    public static let maxCount = 10_000

    public init(unit: Unit, count: Int = 1) {
        self.unit = unit
        self.count = count
    }

    /// `"month"`, `"1 month"`, `"2 weeks"`, `"quarter"`; `nil` when malformed.
    public init?(text: String) {
        let parts = text.split(separator: " ")
        var count = 1
        var name: Substring
        switch parts.count {
        case 1: name = parts[0]
        case 2:
            // Bounded so that adding the period in a calendar (weeks as 7 days, quarters as 3 months) stays exact.
            guard let parsed = Int(parts[0]), parsed > 0, parsed <= Self.maxCount else { return nil }
            count = parsed
            name = parts[1]
        default: return nil
        }
        if name.hasSuffix("s") { name = name.dropLast() }
        guard let unit = Unit(rawValue: String(name)) else { return nil }
        self.unit = unit
        self.count = count
    }

    public var description: String { count == 1 ? unit.rawValue : "\(count) \(unit.rawValue)s" }
}

/// Version strings compared numerically per dot component, zero-padded: `1.2 == 1.2.0`, `1.10 > 1.9`.
public struct Version: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let components: [Int]

    /// Longer version strings are refused: a version is stored with every donation (first and last), so an
    /// unbounded one would let a client grow a user by a megabyte per request.
    public static let maxBytes = 64

    public init?(_ text: String) {
        guard text.utf8.count <= Self.maxBytes else { return nil }
        var parts: [Int] = []
        var value = 0
        var digits = 0
        for byte in text.utf8 {
            if byte == UInt8(ascii: ".") {
                guard digits > 0 else { return nil }
                parts.append(value)
                value = 0
                digits = 0
            } else if byte >= 48, byte <= 57, digits < 9 {
                value = value * 10 + Int(byte - 48)
                digits += 1
            } else {
                return nil
            }
        }
        guard digits > 0 else { return nil }
        parts.append(value)
        while parts.count > 1, parts.last == 0 { parts.removeLast() }
        components = parts
    }

    public static func < (lhs: Version, rhs: Version) -> Bool {
        for index in 0..<max(lhs.components.count, rhs.components.count) {
            let left = index < lhs.components.count ? lhs.components[index] : 0
            let right = index < rhs.components.count ? rhs.components[index] : 0
            if left != right { return left < right }
        }
        return false
    }

    public var description: String { components.map(String.init).joined(separator: ".") }
}
