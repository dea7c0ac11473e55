import Rules
import TestRandom
import Testing

/// The one timestamp formatter: known instants, both fraction styles, the ends of the range, and round trips.
@Suite struct ISO8601FormatTests {
    @Test(arguments: [
        (Int64(0), "1970-01-01T00:00:00Z"),
        (1, "1970-01-01T00:00:00.001Z"),
        (-1, "1969-12-31T23:59:59.999Z"),
        (951_782_400_000, "2000-02-29T00:00:00Z"),
        (1_773_144_000_000, "2026-03-10T12:00:00Z"),
        (253_402_300_799_999, "9999-12-31T23:59:59.999Z"),
        (-62_167_219_200_000, "0000-01-01T00:00:00Z"),
        (-62_167_219_200_001, "-0001-12-31T23:59:59.999Z"),
        (.max, "292278994-08-17T07:12:55.807Z"),
        (.min, "-292275055-05-16T16:47:04.192Z")
    ])
    func format_ofKnownInstant(milliseconds: Int64, text: String) {
        #expect(ISO8601.format(Instant(milliseconds: milliseconds)) == text)
    }

    @Test(arguments: [
        (Int64(0), "1970-01-01T00:00:00.000Z"), (1_773_144_000_120, "2026-03-10T12:00:00.120Z"),
        (-1, "1969-12-31T23:59:59.999Z")
    ])
    func format_withMillisecondsFraction_alwaysWritesThreeDigits(milliseconds: Int64, text: String) {
        #expect(ISO8601.format(Instant(milliseconds: milliseconds), fraction: .milliseconds) == text)
    }

    /// Before year 0 the year is an ISO 8601 expanded year (`-0001`), not a zero-padded negative number (`00-1`).
    @Test func format_beforeYearZero_writesSignedFourDigitYear() {
        #expect(ISO8601.format(Instant(milliseconds: -62_198_755_200_000)).hasPrefix("-0001-01-01T"))
    }

    @Test func formatThenParse_overYearsZeroTo9999_isIdentity() {
        var random = SplitMix(seed: 12)
        let lowest: Int64 = -62_167_219_200_000, highest: Int64 = 253_402_300_799_999
        for _ in 0..<20_000 {
            let instant = Instant(milliseconds: lowest + Int64(random.next(upTo: Int(highest - lowest + 1))))
            for fraction in [ISO8601.Fraction.whenNonZero, .milliseconds] {
                let text = ISO8601.format(instant, fraction: fraction)
                guard ISO8601.parse(text) == instant else {
                    Issue.record("\(instant.milliseconds) → \(text) → \(String(describing: ISO8601.parse(text)))")
                    return
                }
            }
        }
    }
}
