/// Int64 arithmetic that clamps to the range instead of trapping, for instants and durations.
public enum Saturating {
    @inlinable
    public static func add(_ a: Int64, _ b: Int64) -> Int64 {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? (b > 0 ? .max : .min) : sum
    }

    @inlinable
    public static func subtract(_ a: Int64, _ b: Int64) -> Int64 {
        let (difference, overflow) = a.subtractingReportingOverflow(b)
        return overflow ? (b < 0 ? .max : .min) : difference
    }

    @inlinable
    public static func multiply(_ a: Int64, _ b: Int64) -> Int64 {
        let (product, overflow) = a.multipliedReportingOverflow(by: b)
        return overflow ? ((a < 0) == (b < 0) ? .max : .min) : product
    }

    /// `seconds × 1000` rounded toward the past, clamped to Int64 (NaN: 0).
    public static func milliseconds(fromSeconds seconds: Double) -> Int64 {
        int64((seconds * 1000).rounded(.down))
    }

    /// A double as Int64, clamped to the range (NaN: 0): the checked form of `Int64(double)`, which traps outside it.
    public static func int64(_ value: Double) -> Int64 {
        if value.isNaN { return 0 }
        // 2^63 is exactly representable; every double below it converts.
        if value >= 9.223_372_036_854_775_808e18 { return .max }
        if value < -9.223_372_036_854_775_808e18 { return .min }
        return Int64(value)
    }
}
