import Rules
import TestRandom
import Testing

/// The cursor behind answers written into space sized beforehand, and each writer against the `[UInt8]` form it
/// stands beside: the same bytes, and never more than the bound it declares (a cursor given exactly that room
/// stops the process on a byte too many, so each comparison below also checks the bound).
@Suite struct ByteCursorTests {
    /// What `body` writes through a cursor with exactly `room` bytes of space.
    static func written(room: Int, _ body: (inout ByteCursor) -> Void) -> [UInt8] {
        ByteCursor.bytes(capacity: room, body)
    }

    @Test(arguments: [UInt64(0), 1, 9, 10, 99, 100, 4_294_967_295, 10_000_000_000_000_000_000, .max])
    func writeDecimal_unsigned_isTheDescription(value: UInt64) {
        #expect(Self.written(room: ByteCursor.decimalByteBound) { $0.writeDecimal(value) } == Array(String(value).utf8))
    }

    @Test(arguments: [0, -1, 7, -10, Int.max, Int.min, Int.min + 1])
    func writeDecimal_signed_isTheDescription(value: Int) {
        #expect(Self.written(room: ByteCursor.decimalByteBound) { $0.writeDecimal(value) } == Array(String(value).utf8))
    }

    @Test func bytes_keepsWhatWasWritten_andRoomForTheExtra() {
        let out = ByteCursor.bytes(capacity: 8, extra: 100) { cursor in
            cursor.write("ab")
            cursor.write(UInt8(ascii: "c"))
            #expect(cursor.remaining == 5)
        }
        #expect(out == Array("abc".utf8))
        #expect(out.capacity >= 103)
        #expect(ByteCursor.bytes(capacity: 0) { _ in }.isEmpty)
    }

    @Test func writingPastTheSpace_stopsTheProcess() async {
        await #expect(processExitsWith: .failure) {
            _ = ByteCursor.bytes(capacity: 3) { cursor in cursor.write("four") }
        }
        await #expect(processExitsWith: .failure) {
            _ = ByteCursor.bytes(capacity: 19) { cursor in cursor.writeDecimal(UInt64.max) }
        }
    }

    /// Strings of escapes only (the longest form, six bytes each), plain runs and non-ASCII text.
    @Test(arguments: [UInt64(1), 2])
    func writeString_throughACursor_matchesTheArrayForm(seed: UInt64) {
        var random = SplitMix(seed: seed)
        let pieces = ["", "a", "\"", "\\", "\u{0}", "\u{1F}", "\u{7F}", "\n", "\r", "\t", "caf\u{E9}", "☕", "plain text"]
        for _ in 0..<2000 {
            let text = (0..<random.next(upTo: 12)).map { _ in pieces[random.next(upTo: pieces.count)] }.joined()
            var expected: [UInt8] = []
            JSONWriter.writeString(text, into: &expected)
            #expect(Self.written(room: JSONWriter.stringByteBound(text)) { JSONWriter.writeString(text, into: &$0) } == expected)
        }
        let worst = String(repeating: "\u{1}", count: 64)
        #expect(Self.written(room: JSONWriter.stringByteBound(worst)) { JSONWriter.writeString(worst, into: &$0) }.count == 2 + 6 * 64)
    }

    /// Instants over the whole Int64 range (expanded years at both ends) and near the epoch, both fractions.
    @Test(arguments: [UInt64(1), 2])
    func iso8601_throughACursor_matchesTheArrayForm(seed: UInt64) {
        var random = SplitMix(seed: seed)
        var instants = [Int64.min, Int64.max, 0, -1, 253_402_300_799_999, 253_402_300_800_000, -62_167_219_200_001]
        for _ in 0..<2000 {
            instants.append(Int64(bitPattern: UInt64(random.next(upTo: .max)) &* 0x9E37_79B9_7F4A_7C15))
            instants.append(Int64(random.next(upTo: 8_000_000_000_000)) - 4_000_000_000_000)
        }
        for milliseconds in instants {
            for fraction in [ISO8601.Fraction.whenNonZero, .milliseconds] {
                let instant = Instant(milliseconds: milliseconds)
                var expected: [UInt8] = []
                ISO8601.write(instant, fraction: fraction, into: &expected)
                #expect(Self.written(room: ISO8601.maxByteCount) { ISO8601.write(instant, fraction: fraction, into: &$0) } == expected)
            }
        }
    }
}
