import Testing

@testable import Store

/// The checksum of every record and snapshot: the CPU instruction and the tables agree on every length and
/// alignment, and both give the standard check value.
@Suite struct CRC32CTests {
    @Test func checkValue_of123456789_isTheStandardOne() {
        let bytes = Array("123456789".utf8)
        #expect(bytes.withUnsafeBytes { CRC32C.checksum($0) } == 0xE306_9283)
        #expect(bytes.withUnsafeBytes { CRC32C.tableChecksum($0) } == 0xE306_9283)
    }

    @Test func instructionAndTables_agree_onEveryLengthOffsetAndRunningState() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        let bytes = (0..<300).map { _ -> UInt8 in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
        bytes.withUnsafeBytes { all in
            for start in 0..<9 {
                for end in start...all.count where (end - start) % 7 == 0 || end - start < 20 {
                    let slice = UnsafeRawBufferPointer(rebasing: all[start..<end])
                    for initial: UInt32 in [0, 0xDEAD_BEEF] {
                        #expect(CRC32C.checksum(slice, initial: initial) == CRC32C.tableChecksum(slice, initial: initial))
                    }
                }
            }
        }
    }
}
