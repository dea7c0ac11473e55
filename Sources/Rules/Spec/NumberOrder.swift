/// Exact order between JSON numbers and counters: integers compare as integers over the whole Int range, and an
/// integer against a fraction compares without rounding the integer to a double (2^53 + 1 > 2^53 stays true).
enum NumberOrder {
    enum Value: Sendable, Equatable {
        case integer(Int)
        case real(Double)

        init(_ number: JSONNumber) {
            let value = number.double
            // Below 2^53 the double is exact, so no text needs parsing (evaluation reads attributes on every call);
            // only larger integers go back to the lexical form, which keeps them exact over the whole Int range.
            if value.magnitude < 9.007_199_254_740_992e15 {
                self = value == value.rounded(.towardZero) ? .integer(Int(value)) : .real(value)
            } else if let integer = number.int {
                self = .integer(integer)
            } else {
                self = .real(value)
            }
        }

        var double: Double {
            switch self {
            case .integer(let value): return Double(value)
            case .real(let value): return value
            }
        }
    }

    /// -1, 0 or 1; `nil` when either side is NaN (no order).
    static func compare(_ a: Value, _ b: Value) -> Int? {
        switch (a, b) {
        case (.integer(let x), .integer(let y)): return x < y ? -1 : (x > y ? 1 : 0)
        case (.integer(let x), .real(let y)): return compare(x, y)
        case (.real(let x), .integer(let y)): return compare(y, x).map { -$0 }
        case (.real(let x), .real(let y)):
            if x.isNaN || y.isNaN { return nil }
            return x < y ? -1 : (x > y ? 1 : 0)
        }
    }

    /// An integer against a double, exactly.
    static func compare(_ x: Int, _ y: Double) -> Int? {
        if y.isNaN { return nil }
        // 2^63 is exact as a double; every double in [-2^63, 2^63) has an integral part that fits an Int.
        if y >= 9.223_372_036_854_775_808e18 { return -1 }
        if y < -9.223_372_036_854_775_808e18 { return 1 }
        let floor = y.rounded(.down)
        let whole = Int(floor)
        if x < whole { return -1 }
        if x > whole { return 1 }
        return y > floor ? -1 : 0
    }

    /// `|a − b| <= tolerance`: exact for integers (128-bit difference), double precision otherwise; an infinite
    /// difference (1e308 against -1e308) does not hold.
    static func near(_ a: Value, _ b: Value, tolerance: Value) -> Bool {
        if case .integer(let x) = a, case .integer(let y) = b, case .integer(let limit) = tolerance {
            let difference = Int128(x) - Int128(y)
            return (difference < 0 ? -difference : difference) <= Int128(limit)
        }
        let difference = abs(a.double - b.double)
        guard difference.isFinite else { return false }
        return difference <= tolerance.double
    }
}
