/// The CRC-32 of zlib, Ethernet and PNG (ISO-HDLC: reflected polynomial 0xEDB88320, initial and final XOR
/// 0xFFFFFFFF), the one nginx's `hash` directive computes. Not the store's CRC-32C: the two polynomials differ, and
/// cluster ownership must agree with nginx bit for bit.
public enum ZlibCRC32 {
    static let table: [UInt32] = (0..<256).map { index in
        var crc = UInt32(index)
        for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        return crc
    }

    /// The checksum of `bytes`; `"123456789"` gives 0xCBF43926 (the catalogue's check value).
    public static func checksum<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        table.withUnsafeBufferPointer { table in
            for byte in bytes { crc = (crc >> 8) ^ table[Int((crc ^ UInt32(byte)) & 0xFF)] }
        }
        return ~crc
    }
}
