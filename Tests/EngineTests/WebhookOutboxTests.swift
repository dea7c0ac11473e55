import Engine
import Rules
import Testing

@Suite struct WebhookOutboxTests {
    static let delivery = WebhookDelivery(
        id: 42, webhook: "http://h/x", user: "ü/ser", eventID: "17-2", eventType: "flag", body: Array(#"{"a":1}"#.utf8),
        createdAt: Instant(milliseconds: 1_773_144_000_000))

    @Test(arguments: [OutboxRecord.enqueued(delivery), .settled(id: 42, .delivered), .settled(id: 7, .deadLettered), .settled(id: 1, .orphaned)])
    func record_roundTrips(_ record: OutboxRecord) {
        let (records, failure) = OutboxRecord.decodeAll(record.encoded() + record.encoded())
        #expect(records == [record, record])
        #expect(failure == nil)
    }

    @Test func record_cutAnywhere_isTruncatedNeverMisread() {
        let bytes = OutboxRecord.enqueued(Self.delivery).encoded()
        for cut in 1..<bytes.count {
            let (records, failure) = OutboxRecord.decodeAll(Array(bytes.prefix(cut)))
            #expect(records.isEmpty)
            #expect(failure == .truncated(offset: 0))
        }
    }

    @Test func record_anyFlippedPayloadBit_isRefusedByTheChecksum() {
        let bytes = OutboxRecord.enqueued(Self.delivery).encoded()
        for index in 8..<bytes.count {
            var damaged = bytes
            damaged[index] ^= 0x10
            #expect(OutboxRecord.decodeAll(damaged).failure == .checksumMismatch(offset: 0))
        }
    }

    @Test func decode_randomBytes_refusesWithoutTrapping() {
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        for round in 0..<2000 {
            var bytes: [UInt8] = []
            for _ in 0..<(round % 97) {
                state ^= state << 13
                state ^= state >> 7
                state ^= state << 17
                bytes.append(UInt8(truncatingIfNeeded: state))
            }
            let (records, failure) = OutboxRecord.decodeAll(bytes)
            #expect(records.isEmpty == (failure != nil) || bytes.isEmpty)
        }
    }

    @Test func decode_hugeLengthField_isRefusedWithoutAllocating() {
        let bytes: [UInt8] = [0xFF, 0xFF, 0xFF, 0x7F, 0, 0, 0, 0, 1]
        #expect(OutboxRecord.decodeAll(bytes).failure == .malformed(offset: 0))
    }

    @Test(arguments: [
        (1, 0.5, Int64(1000)), (1, 0.0, 800), (1, 0.999_999, 1200), (2, 0.5, 2000), (3, 0.5, 4000), (10, 0.5, 512_000), (10, 0.999_999, 600_000),
        (11, 0.0, 480_000), (11, 0.5, 600_000), (1000, 0.5, 600_000), (0, 0.5, 1000)
    ])
    func backoff_doublesFromOneSecond_withinJitter_atMostTenMinutes(failures: Int, random: Double, expected: Int64) {
        #expect(WebhookBackoff.delay(afterFailures: failures, random: random) == expected)
    }
}
