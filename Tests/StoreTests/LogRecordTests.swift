import Testing

@testable import Store

/// The on-disk record, `[length u32][crc32c u32][seq u64][payload]` little-endian, with the CRC over the seq's
/// bytes then the payload: spelled out byte by byte here, against the encoder that writes it in place.
@Suite struct LogRecordTests {
    static func spelledOut(seq: UInt64, payload: [UInt8]) -> [UInt8] {
        let seqBytes = (0..<8).map { UInt8(truncatingIfNeeded: seq >> (8 * $0)) }
        let crc = CRC32C.tableChecksum((seqBytes + payload).withUnsafeBytes { UnsafeRawBufferPointer($0) })
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
}
