/// Builds log records byte for byte (`[length][crc32c][seq][payload]`), independently of the Store's own code.
enum RecordBuilder {
    static func crc32c(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
        }
        return ~crc
    }

    static func littleEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        withUnsafeBytes(of: value.littleEndian) { Array($0) }
    }

    static func record(seq: UInt64, payload: [UInt8]) -> [UInt8] {
        let covered = littleEndian(seq) + payload
        return littleEndian(UInt32(payload.count)) + littleEndian(crc32c(covered)) + covered
    }
}
