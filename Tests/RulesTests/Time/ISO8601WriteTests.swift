import Rules
import TestRandom
import Testing

/// The byte writer behind `ISO8601.format` against the `String` formula it replaced, on random instants over the
/// whole Int64 range and near the epoch.
@Suite struct ISO8601WriteTests {
    /// The formatter as it was: the civil date's description and zero-padded decimal fields.
    static func formatted(_ instant: Instant, milliseconds always: Bool) -> String {
        func pad(_ value: Int, _ width: Int) -> String {
            let text = String(value)
            return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
        }
        let (days, millisecondOfDay) = CivilDate.split(millisecondsSinceEpoch: instant.milliseconds)
        let secondOfDay = Int(millisecondOfDay / 1000)
        let millis = Int(millisecondOfDay % 1000)
        var text =
            CivilDate(daysSinceEpoch: Int(days)).description + "T" + pad(secondOfDay / 3600, 2) + ":" + pad(secondOfDay / 60 % 60, 2)
            + ":" + pad(secondOfDay % 60, 2)
        if millis != 0 || always { text += "." + pad(millis, 3) }
        return text + "Z"
    }

    @Test(arguments: [UInt64(1), 2, 3]) func write_randomInstants_matchTheStringFormula(seed: UInt64) {
        var random = SplitMix(seed: seed)
        for _ in 0..<2000 {
            let wide = Int64(bitPattern: UInt64(random.next(upTo: .max)) &* 0x9E37_79B9_7F4A_7C15)
            let near = Int64(random.next(upTo: 8_000_000_000_000)) - 4_000_000_000_000
            for milliseconds in [wide, near, near / 1000 * 1000] {
                let instant = Instant(milliseconds: milliseconds)
                var bytes: [UInt8] = [0x41]
                ISO8601.write(instant, into: &bytes)
                #expect(bytes == [0x41] + Array(Self.formatted(instant, milliseconds: false).utf8))
                #expect(ISO8601.format(instant, fraction: .milliseconds) == Self.formatted(instant, milliseconds: true))
            }
        }
    }
}
