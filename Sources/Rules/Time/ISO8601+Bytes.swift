extension ISO8601 {
    /// `format`'s text appended to a byte buffer: answers built straight into their body (a donation's dates) pay
    /// for no intermediate `String`s, and `format` is this with a `String` made at the end.
    public static func write(_ instant: Instant, fraction: Fraction = .whenNonZero, into out: inout [UInt8]) {
        let (days, millisecondOfDay) = CivilDate.split(millisecondsSinceEpoch: instant.milliseconds)
        let date = CivilDate(daysSinceEpoch: Int(days))
        let secondOfDay = Int(millisecondOfDay / 1000)
        let millis = Int(millisecondOfDay % 1000)
        // The ends of the Int64 range are expanded years (more than four digits, or negative), never a trap.
        if date.year < 0 { out.append(UInt8(ascii: "-")) }
        appendDigits(date.year.magnitude, width: 4, into: &out)
        out.append(UInt8(ascii: "-"))
        appendDigits(UInt(date.month), width: 2, into: &out)
        out.append(UInt8(ascii: "-"))
        appendDigits(UInt(date.day), width: 2, into: &out)
        out.append(UInt8(ascii: "T"))
        appendDigits(UInt(secondOfDay / 3600), width: 2, into: &out)
        out.append(UInt8(ascii: ":"))
        appendDigits(UInt(secondOfDay / 60 % 60), width: 2, into: &out)
        out.append(UInt8(ascii: ":"))
        appendDigits(UInt(secondOfDay % 60), width: 2, into: &out)
        if millis != 0 || fraction == .milliseconds {
            out.append(UInt8(ascii: "."))
            appendDigits(UInt(millis), width: 3, into: &out)
        }
        out.append(UInt8(ascii: "Z"))
    }

    /// Decimal digits, zero-padded on the left to `width`.
    private static func appendDigits(_ value: UInt, width: Int, into out: inout [UInt8]) {
        var digits = 1
        var scale: UInt = 10
        while digits < 20, value >= scale {
            digits += 1
            scale = scale.multipliedReportingOverflow(by: 10).partialValue
        }
        for _ in digits..<max(width, digits) { out.append(UInt8(ascii: "0")) }
        let start = out.count
        var rest = value
        for _ in 0..<digits {
            out.append(UInt8(ascii: "0") + UInt8(rest % 10))
            rest /= 10
        }
        out[start...].reverse()
    }
}
