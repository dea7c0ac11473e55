extension ISO8601 {
    /// `format`'s text appended to a byte buffer: answers built straight into their body (a donation's dates) pay
    /// for no intermediate `String`s, and `format` is this with a `String` made at the end.
    public static func write(_ instant: Instant, fraction: Fraction = .whenNonZero, into out: inout [UInt8]) {
        let (days, millisecondOfDay) = CivilDate.split(millisecondsSinceEpoch: instant.milliseconds)
        let date = CivilDate.remembered(daysSinceEpoch: days)
        let secondOfDay = Int(millisecondOfDay / 1000)
        let millis = Int(millisecondOfDay % 1000)
        if (0...9999).contains(date.year) {
            writeFixedWidth(
                year: date.year, month: date.month, day: date.day, secondOfDay: secondOfDay, millis: millis,
                withFraction: millis != 0 || fraction == .milliseconds, into: &out)
            return
        }
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

    /// The length of what `write` writes, counted without writing it: 20 bytes, 24 with milliseconds, for a
    /// four-digit year; an expanded year (the ends of the Int64 range) is written to be counted.
    public static func byteCount(_ instant: Instant, fraction: Fraction = .whenNonZero) -> Int {
        let (days, millisecondOfDay) = CivilDate.split(millisecondsSinceEpoch: instant.milliseconds)
        guard (0...9999).contains(CivilDate.remembered(daysSinceEpoch: days).year) else {
            var out: [UInt8] = []
            write(instant, fraction: fraction, into: &out)
            return out.count
        }
        return millisecondOfDay % 1000 != 0 || fraction == .milliseconds ? 24 : 20
    }

    /// The most bytes `write(_:fraction:into:)` writes for any instant: a sign, a nine-digit year (the ends of the
    /// Int64 range) and `-MM-DDTHH:MM:SS.SSSZ`.
    public static let maxByteCount = 30

    /// `write(_:fraction:into:)` through a cursor with `maxByteCount` bytes of room: the same bytes.
    public static func write(_ instant: Instant, fraction: Fraction = .whenNonZero, into cursor: inout ByteCursor) {
        let (days, millisecondOfDay) = CivilDate.split(millisecondsSinceEpoch: instant.milliseconds)
        let date = CivilDate.remembered(daysSinceEpoch: days)
        let millis = Int(millisecondOfDay % 1000)
        guard (0...9999).contains(date.year) else {
            var expanded: [UInt8] = []
            write(instant, fraction: fraction, into: &expanded)
            expanded.withUnsafeBufferPointer { cursor.write($0) }
            return
        }
        let withFraction = millis != 0 || fraction == .milliseconds
        let length = withFraction ? 24 : 20
        precondition(cursor.remaining >= length, "ISO8601: written past the cursor's space")
        cursor.advance(by: length) { text in
            writeFixedWidth(
                year: date.year, month: date.month, day: date.day, secondOfDay: Int(millisecondOfDay / 1000), millis: millis,
                withFraction: withFraction, at: text)
        }
    }

    /// The common case, a four-digit year: 20 or 24 bytes of fixed layout (`withFraction`), made on the stack and
    /// appended at once.
    private static func writeFixedWidth(
        year: Int, month: Int, day: Int, secondOfDay: Int, millis: Int, withFraction: Bool, into out: inout [UInt8]
    ) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24) { text in
            writeFixedWidth(
                year: year, month: month, day: day, secondOfDay: secondOfDay, millis: millis, withFraction: withFraction,
                at: text.baseAddress!)
            out.append(contentsOf: UnsafeBufferPointer(start: text.baseAddress, count: withFraction ? 24 : 20))
        }
    }

    /// The fixed layout written at `text`, which has room for its 20 or 24 bytes. (Named `at:`, not `into:`: an
    /// `inout [UInt8]` argument converts to a pointer, and the array form would have called this one.)
    private static func writeFixedWidth(
        year: Int, month: Int, day: Int, secondOfDay: Int, millis: Int, withFraction: Bool, at text: UnsafeMutablePointer<UInt8>
    ) {
        // Unsigned 32-bit arithmetic, two digits a step: signed `Int` division by 10 per digit (17 of them a date)
        // was most of this function's cost, and a donation's answer writes two dates.
        let second = UInt32(truncatingIfNeeded: secondOfDay)
        let hour = second / 3600
        let minuteAndSecond = second - hour * 3600
        let minute = minuteAndSecond / 60
        let year = UInt32(truncatingIfNeeded: year)
        let century = year / 100
        @inline(__always) func two(_ value: UInt32, at index: Int) {
            let tens = value / 10
            text[index] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: tens)
            text[index + 1] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value &- tens &* 10)
        }
        two(century, at: 0)
        two(year &- century &* 100, at: 2)
        text[4] = UInt8(ascii: "-")
        two(UInt32(truncatingIfNeeded: month), at: 5)
        text[7] = UInt8(ascii: "-")
        two(UInt32(truncatingIfNeeded: day), at: 8)
        text[10] = UInt8(ascii: "T")
        two(hour, at: 11)
        text[13] = UInt8(ascii: ":")
        two(minute, at: 14)
        text[16] = UInt8(ascii: ":")
        two(minuteAndSecond &- minute &* 60, at: 17)
        var length = 19
        if withFraction {
            let fraction = UInt32(truncatingIfNeeded: millis)
            let hundreds = fraction / 100
            text[19] = UInt8(ascii: ".")
            text[20] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: hundreds)
            two(fraction &- hundreds &* 100, at: 21)
            length = 23
        }
        text[length] = UInt8(ascii: "Z")
    }

    /// Decimal digits, zero-padded on the left to `width`. Written most significant first into space reserved
    /// once: appending digit by digit and reversing cost ~700 instructions a field, seven fields a date, and a
    /// donation's answer writes two dates.
    private static func appendDigits(_ value: UInt, width: Int, into out: inout [UInt8]) {
        var digits = 1
        var scale: UInt = 10
        while digits < 20, value >= scale {
            digits += 1
            scale = scale.multipliedReportingOverflow(by: 10).partialValue
        }
        let count = max(width, digits)
        let start = out.count
        out.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: count))
        out.withUnsafeMutableBufferPointer { buffer in
            var rest = value
            var position = start + count - 1
            for _ in 0..<digits {
                buffer[position] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest % 10)
                rest /= 10
                position -= 1
            }
        }
    }
}
