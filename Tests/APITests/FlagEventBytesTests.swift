import HTTP
import Rules
import TestRandom
import Testing

@testable import API
@testable import Engine

/// A flag event's SSE bytes, written directly, equal what the hub made before: `streamData` as a `JSONValue`,
/// `JSONWriter`, then `SSEEncoder` splitting the text into `data` lines.
@Suite struct FlagEventBytesTests {
    static let values: [JSONValue?] = [nil, .bool(true), .int(-20), .string("v\"1\n2"), ["sku": "pro", "off": 25.5], [1, "two", .null]]
    static let texts = ["promo-banner", "caf\u{E9}", "cafe\u{301}", "tab\tand\u{7F}", "line\r\nbreak", "\u{2028}sep", ""]
    static let reasons: [Evaluation.Reason] = [.targetingMatch, .defaultValue, .disabled, .error]

    @Test func flagEventBytes_randomChanges_equalTheEncoderOfTheJSONTree() {
        var random = SplitMix(seed: 11)
        var scratch: [UInt8] = []
        for _ in 0..<2000 {
            let user = Self.texts[random.next(upTo: Self.texts.count)]
            let key = Self.texts[random.next(upTo: Self.texts.count)]
            var evaluation = Evaluation(
                key: key, value: Self.values[random.next(upTo: Self.values.count)],
                reason: Self.reasons[random.next(upTo: Self.reasons.count)], matched: random.next(upTo: 2) == 0)
            if random.next(upTo: 2) == 0 { evaluation.variant = Self.texts[random.next(upTo: Self.texts.count)] }
            let previous = Self.values[random.next(upTo: Self.values.count)]
            let seq = UInt64(random.next(upTo: 1 << 40))
            let id = EventID(seq: [seq, 0, UInt64.max][random.next(upTo: 3)], index: [0, 1, 2, 10, Int.max][random.next(upTo: 5)])
            let event = DomainEvent.flagChanged(user: user, key: key, evaluation: evaluation, previous: previous, seq: seq, appVersion: nil)
            let expected = SSEEncoder.encode(SSEEvent(id: id.description, event: "flag", data: JSONWriter.string(event.streamData(seq: id.seq))))
            let bytes = StreamHub.eventBytes(id: id, event, scratch: &scratch)
            #expect(bytes == expected)
            #expect(bytes.capacity - bytes.count <= 32)
            // Counted before encoding, for the resume window's byte bound: exact, or the bound drifts.
            #expect(StreamHub.eventByteCount(id: id, event) == bytes.count)
            #expect(id.textLength == id.description.utf8.count)
        }
    }

    /// A trigger's firing is written member by member too (it is retained unencoded, like a flag change): the same
    /// bytes as its JSON tree through `JSONWriter` and `SSEEncoder`, counted exactly before they are made. Instants
    /// with and without milliseconds, and the expanded years at the ends of the Int64 range.
    @Test func triggerEventBytes_randomFirings_equalTheEncoderOfTheJSONTree() {
        var random = SplitMix(seed: 12)
        var scratch: [UInt8] = []
        let instants: [Int64] = [
            0, 1, -1, 999, 1_000, 1_773_144_000_000, 1_773_144_000_123, 253_402_300_799_999, 253_402_300_800_000, -62_167_219_200_001, .max, .min
        ]
        for _ in 0..<2000 {
            let user = Self.texts[random.next(upTo: Self.texts.count)]
            let trigger = Self.texts[random.next(upTo: Self.texts.count)]
            let milliseconds = random.next(upTo: 3) == 0 ? instants[random.next(upTo: instants.count)] : Int64(random.next(upTo: 1 << 44))
            let seq = UInt64(random.next(upTo: 1 << 40))
            let id = EventID(seq: [seq, 0, UInt64.max][random.next(upTo: 3)], index: [0, 1, 2, 10, Int.max][random.next(upTo: 5)])
            let event = DomainEvent.triggerFired(user: user, trigger: trigger, at: Instant(milliseconds: milliseconds), seq: seq)
            // The data names the firing's own write, whatever the id (as the JSON tree was built before).
            let expected = SSEEncoder.encode(SSEEvent(id: id.description, event: "trigger", data: JSONWriter.string(event.streamData(seq: seq))))
            let bytes = StreamHub.eventBytes(id: id, event, scratch: &scratch)
            #expect(bytes == expected)
            #expect(StreamHub.eventByteCount(id: id, event) == bytes.count)
            #expect(ISO8601.byteCount(Instant(milliseconds: milliseconds)) == ISO8601.format(Instant(milliseconds: milliseconds)).utf8.count)
            #expect(
                ISO8601.byteCount(Instant(milliseconds: milliseconds), fraction: .milliseconds)
                    == ISO8601.format(Instant(milliseconds: milliseconds), fraction: .milliseconds).utf8.count)
        }
    }
}
