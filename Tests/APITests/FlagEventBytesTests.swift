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
            let bytes = StreamHub.flagEventBytes(id: id, event, scratch: &scratch)
            #expect(bytes == expected)
            #expect(bytes.capacity - bytes.count <= 32)
            // Counted before encoding, for the resume window's byte bound: exact, or the bound drifts.
            #expect(StreamHub.flagEventByteCount(id: id, event) == bytes.count)
            #expect(id.textLength == id.description.utf8.count)
        }
    }
}
