import Rules
import TestRandom
import Testing

@testable import Store

/// The writer's varints are LEB128 byte for byte: logs and snapshots written by one build are read by the next.
@Suite struct BinaryWriterTests {
    /// The encoding as LEB128 defines it, one byte at a time.
    static func reference(_ value: UInt64) -> [UInt8] {
        var bytes: [UInt8] = []
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
        return bytes
    }

    /// Every length from one byte to ten, at both ends: 2^(7k) - 1 is the last value of k bytes, 2^(7k) the first
    /// of k + 1, and `UInt64.max` the only ten-byte values' top.
    static let boundaries: [UInt64] = {
        var values: [UInt64] = [0, 1, UInt64.max, UInt64.max - 1, 1 << 63, (1 << 63) - 1]
        for bits in stride(from: 7, to: 64, by: 7) {
            let first = UInt64(1) << UInt64(bits)
            values += [first - 1, first, first + 1]
        }
        return values
    }()

    @Test func unsigned_writesLEB128_atEveryLengthBoundary() throws {
        for value in Self.boundaries {
            var writer = BinaryWriter()
            writer.unsigned(value)
            #expect(writer.bytes == Self.reference(value), "value \(value)")
            var reader = BinaryReader(writer.bytes)
            #expect(try reader.unsigned() == value)
            #expect(reader.isAtEnd)
        }
        #expect(Self.reference(UInt64.max).count == 10)
    }

    @Test func unsigned_appendsAfterWhatIsThere_forRandomValuesOfEveryWidth() throws {
        enum Item: Equatable {
            case varint(UInt64)
            case byte(UInt8)
        }
        var generator = SplitMix(seed: 0x5eed_b17e)
        var writer = BinaryWriter()
        var expected: [UInt8] = []
        var items: [Item] = []
        for _ in 0..<5_000 {
            // A random width first, so short and long values are drawn alike.
            let width = generator.next(upTo: 65)
            let bits = UInt64(generator.next(upTo: 1 << 32)) << 32 | UInt64(generator.next(upTo: 1 << 32))
            let value = width == 0 ? 0 : bits >> UInt64(64 - width)
            writer.unsigned(value)
            expected += Self.reference(value)
            items.append(.varint(value))
            if generator.next(upTo: 4) == 0 {
                writer.byte(0xAB)
                expected.append(0xAB)
                items.append(.byte(0xAB))
            }
        }
        #expect(writer.bytes == expected)
        var reader = BinaryReader(writer.bytes)
        for item in items {
            switch item {
            case .varint(let value): #expect(try reader.unsigned() == value)
            case .byte(let value): #expect(try reader.byte() == value)
            }
        }
        #expect(reader.isAtEnd)
    }

    @Test func signed_zigzags_theExtremes() throws {
        for value: Int64 in [0, -1, 1, .min, .max, -64, 63, -65, 64] {
            var writer = BinaryWriter()
            writer.signed(value)
            var reader = BinaryReader(writer.bytes)
            #expect(try reader.signed() == value)
        }
    }
}
