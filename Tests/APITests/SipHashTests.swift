import Testing

@testable import API

/// The answer cache's keyed hash is SipHash as published: the reference vectors (key 00 01 … 0f, message 00 01 …
/// of each length), wherever the bytes lie in memory and however a stream is given them.
@Suite struct SipHashTests {
    static let key: (UInt64, UInt64) = (0x0706_0504_0302_0100, 0x0f0e_0d0c_0b0a_0908)

    /// SipHash-2-4, the first entries of the paper's reference table (`vectors.h`, little-endian bytes read as words).
    static let vectors24: [UInt64] = [
        0x726f_db47_dd0e_0e31, 0x74f8_39c5_93dc_67fd, 0x0d6c_8009_d9a9_4f5a, 0x8567_6696_d7fb_7e2d, 0xcf27_94e0_2771_87b7,
        0x1876_5564_cd99_a68d
    ]

    /// SipHash-1-3 (the variant used) for these lengths, from an independent implementation that gives the table
    /// above for 2-4.
    static let vectors13: [(length: Int, hash: UInt64)] = [
        (0, 0xabac_0158_050f_c4dc), (1, 0xc9f4_9bf3_7d57_ca93), (7, 0xd392_7d98_9bb1_1140), (8, 0x3690_9511_8d29_9a8e),
        (9, 0x25a4_8eb3_6c06_3de4), (15, 0xd320_d86d_2a51_9956), (16, 0xcc4f_dd1a_7d90_8b66), (17, 0x9cf2_6890_63db_d80c),
        (31, 0x2370_dd1f_8c21_d1bc), (63, 0x9d19_9062_b7bb_b3a8)
    ]

    /// The message placed at each offset of a buffer, so whole words are read unaligned as well as aligned.
    static func hash(_ length: Int, offset: Int, rounds: (Int, Int)) -> UInt64 {
        let buffer = [UInt8](repeating: 0xEE, count: offset) + (0..<length).map { UInt8($0) } + [0xEE]
        return buffer.withUnsafeBytes { raw in
            SipHash.hash(
                UnsafeRawBufferPointer(rebasing: raw[offset..<(offset + length)]), key: key, compressionRounds: rounds.0,
                finalizationRounds: rounds.1)
        }
    }

    @Test func sipHash24_matchesTheReferenceVectors_atEveryAlignment() {
        for (length, expected) in Self.vectors24.enumerated() {
            for offset in 0..<8 {
                #expect(Self.hash(length, offset: offset, rounds: (2, 4)) == expected, "length \(length), offset \(offset)")
            }
        }
    }

    @Test func sipHash13_matchesTheReference_atEveryAlignment() {
        for (length, expected) in Self.vectors13 {
            for offset in 0..<8 {
                #expect(Self.hash(length, offset: offset, rounds: (1, 3)) == expected, "length \(length), offset \(offset)")
            }
            let message = (0..<length).map { UInt8($0) }
            #expect(message.withUnsafeBytes { SipHash.hash13($0, key: Self.key) } == expected)
        }
    }

    /// Cut anywhere, fed a byte or a piece at a time, the stream hashes its pieces as one message.
    @Test func theStream_hashesItsPiecesAsOneMessage() {
        for length in 0..<40 {
            let message = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            let expected = message.withUnsafeBytes { SipHash.hash13($0, key: Self.key) }
            for cut in 0...length {
                for single in [false, true] {
                    var stream = SipHash.Stream(key: Self.key)
                    message[..<cut].withUnsafeBufferPointer { stream.append($0) }
                    if single, cut < length {
                        stream.append(message[cut])
                        message[(cut + 1)...].withUnsafeBufferPointer { stream.append($0) }
                    } else {
                        message[cut...].withUnsafeBufferPointer { stream.append($0) }
                    }
                    #expect(stream.finalize() == expected, "length \(length), cut \(cut)")
                }
            }
        }
        var stream = SipHash.Stream(key: Self.key)
        for byte in (0..<63).map({ UInt8($0) }) { stream.append(byte) }
        #expect(stream.finalize() == Self.vectors13.last!.hash)
    }
}
