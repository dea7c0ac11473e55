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
