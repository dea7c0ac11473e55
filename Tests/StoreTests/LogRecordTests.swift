import Rules
import TestRandom
import Testing

@testable import Store

/// The on-disk record, `[length u32][crc32c u32][seq u64][payload]` little-endian, with the CRC over the seq's
/// bytes then the payload: spelled out byte by byte here, against the encoder that writes it in place.
@Suite struct LogRecordTests {
    static func spelledOut(seq: UInt64, payload: [UInt8]) -> [UInt8] {
        let seqBytes = (0..<8).map { UInt8(truncatingIfNeeded: seq >> (8 * $0)) }
        // Inside the closure: a pointer carried out of `withUnsafeBytes` points at freed memory once reused.
        let crc = (seqBytes + payload).withUnsafeBytes { CRC32C.tableChecksum($0) }
        let length = (0..<4).map { UInt8(truncatingIfNeeded: UInt32(payload.count) >> (8 * $0)) }
        let crcBytes = (0..<4).map { UInt8(truncatingIfNeeded: crc >> (8 * $0)) }
        return length + crcBytes + seqBytes + payload
    }

    @Test(arguments: [(UInt64(1), 0), (0x0102_0304_0506_0708, 1), (.max, 300)])
    func encode_writesTheFormatsBytes_afterWhatIsQueued(seq: UInt64, payloadCount: Int) {
        let payload = (0..<payloadCount).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        var out: [UInt8] = [0xAA, 0xBB]
        LogRecord.encode(seq: seq, payload: payload, into: &out)
        #expect(out == [0xAA, 0xBB] + Self.spelledOut(seq: seq, payload: payload))
        #expect(LogRecord.scan(out, at: 2) == .record(seq: seq, payload: 18..<(18 + payloadCount), next: out.count))
    }

    /// A write's record is encoded straight into the queue, its header filled in after the payload: the same bytes
    /// as the payload encoded on its own and framed, over random mutations and whatever was queued before.
    @Test func encodingInPlace_writesTheSameBytesAsFramingTheEncodedPayload() {
        var random = SplitMix(seed: 0x10C)
        for round in 0..<500 {
            let now = Instant(milliseconds: 1_773_144_000_000 + Int64(round) * 977)
            let mutation = Mutation(
                user: String(repeating: "u", count: 1 + random.next(upTo: 40)), now: now,
                actions: (0..<(1 + random.next(upTo: 4))).map { _ in random.action(now: now) })
            let queued = (0..<random.next(upTo: 50)).map { _ in UInt8(random.next(upTo: 256)) }
            let seq = UInt64(random.next(upTo: 1 << 40)) + 1
            var inPlace = queued
            LogRecord.encode(seq: seq, into: &inPlace) { MutationCodec.encode(mutation, into: &$0) }
            var framed = queued
            LogRecord.encode(seq: seq, payload: MutationCodec.encode(mutation), into: &framed)
            #expect(inPlace == framed)
            #expect(inPlace == queued + Self.spelledOut(seq: seq, payload: MutationCodec.encode(mutation)))
        }
    }
}
