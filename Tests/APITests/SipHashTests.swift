import Testing

@testable import API

/// The answer cache's keyed hash is SipHash as published: the reference vectors (key 00 01 … 0f, message 00 01 …
/// of each length), wherever the bytes lie in memory, and given in parts.
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

    /// Parts hash as the one message they stand for: each part's bytes, its marker, zeros to a whole word.
    @Test func parts_hashAsTheirPaddedMessage() {
        for first in 0..<20 {
            for second in [0, 1, 7, 8, 9, 16] {
                let a = (0..<first).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
                let b = (0..<second).map { UInt8(truncatingIfNeeded: $0 &* 101 &+ 3) }
                var message: [UInt8] = []
                for (part, marker) in [(a, UInt8(0xFF)), (b, UInt8(0xFE))] {
                    message += part + [marker]
                    while message.count % 8 != 0 { message.append(0) }
                }
                // Read where they lie at every alignment, with other bytes before them (a part's last word is read
                // in one load that may start before its first byte).
                for offset in 0..<8 {
                    let lyingA = [UInt8](repeating: 0xA5, count: offset) + a
                    let lyingB = [UInt8](repeating: 0x5A, count: 7 - offset) + b
                    var parts = SipHash.Parts(key: Self.key)
                    lyingA.withUnsafeBytes { parts.append(UnsafeRawBufferPointer(rebasing: $0[offset...]), marker: 0xFF) }
                    lyingB.withUnsafeBytes { parts.append(UnsafeRawBufferPointer(rebasing: $0[(7 - offset)...]), marker: 0xFE) }
                    #expect(
                        parts.finalize() == message.withUnsafeBytes { SipHash.hash13($0, key: Self.key) }, "\(first), \(second), \(offset)")
                }
            }
        }
    }

    /// The last word's bytes, read in a few loads, are the bytes a byte-at-a-time loop gathers: every buffer length
    /// up to three words, from every start, at every alignment.
    @Test func lastBytes_gatherTheSameWordAsAByteLoop() {
        for length in 0..<24 {
            for alignment in 0..<8 {
                let buffer = [UInt8](repeating: 0xC3, count: alignment) + (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 73 &+ 29) }
                buffer.withUnsafeBytes { raw in
                    let bytes = UnsafeRawBufferPointer(rebasing: raw[alignment...])
                    for start in stride(from: length, through: max(0, length - 7), by: -1) {
                        var expected: UInt64 = 0
                        for (shift, index) in (start..<length).enumerated() { expected |= UInt64(bytes[index]) << (8 * UInt64(shift)) }
                        #expect(SipHash.lastBytes(bytes, from: start) == expected, "length \(length), start \(start), alignment \(alignment)")
                    }
                }
            }
        }
    }

    /// A cache key's digest is its three parts': user, flag and version, each ended by 0xFF, no version by 0xFE.
    @Test func aCacheKeysDigest_hashesItsThreeParts() {
        func padded(_ parts: [([UInt8], UInt8)]) -> [UInt8] {
            var message: [UInt8] = []
            for (bytes, marker) in parts {
                message += bytes + [marker]
                while message.count % 8 != 0 { message.append(0) }
            }
            return message
        }
        let key = AnswerCache.Key(user: "user-12345678", flag: "promo-banner", appVersion: "1.2")
        let message = padded([(Array("user-12345678".utf8), 0xFF), (Array("promo-banner".utf8), 0xFF), (Array("1.2".utf8), 0xFF)])
        #expect(key.digest == message.withUnsafeBytes { SipHash.hash13($0, key: AnswerCache.Key.hashKey) })
        let none = AnswerCache.Key(user: "u", flag: "f", appVersion: nil)
        let noneMessage = padded([(Array("u".utf8), 0xFF), (Array("f".utf8), 0xFF), ([], 0xFE)])
        #expect(none.digest == noneMessage.withUnsafeBytes { SipHash.hash13($0, key: AnswerCache.Key.hashKey) })
        let pairs: [(AnswerCache.Key, AnswerCache.Key)] = [
            (.init(user: "ab", flag: "c", appVersion: nil), .init(user: "a", flag: "bc", appVersion: nil)),
            (.init(user: "u", flag: "f", appVersion: nil), .init(user: "u", flag: "f", appVersion: "")),
            (.init(user: "caf\u{E9}", flag: "f", appVersion: nil), .init(user: "cafe\u{301}", flag: "f", appVersion: nil)),
            (.init(user: "a\u{0}", flag: "f", appVersion: nil), .init(user: "a", flag: "f", appVersion: nil))
        ]
        for (a, b) in pairs {
            #expect(a != b)
            #expect(a.digest != b.digest)
        }
    }
}
