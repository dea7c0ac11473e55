import TestRandom
import Testing

@testable import HTTP

/// Case-insensitive comparison of contiguous bytes, eight at a time where the words agree: the same answer as
/// folding every byte, for every length and for a difference (or a case difference) at every position.
@Suite struct ASCIICaseTests {
    static func naive(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { ASCII.lower($0) == ASCII.lower($1) }
    }

    static func fast(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        a.withUnsafeBufferPointer { a in b.withUnsafeBufferPointer { b in ASCII.equalsIgnoringCase(a, b) } }
    }

    @Test func agreesWithFoldingEveryByte_overRandomPairs() {
        var random = SplitMix(seed: 0xCA5E)
        let alphabet: [UInt8] = Array("aAzZ-_09@[`{".utf8) + [0x00, 0x7F, 0x80, 0xC1, 0xE1, 0xFF]
        for _ in 0..<20_000 {
            let length = random.next(upTo: 30)
            let a = (0..<length).map { _ in alphabet[random.next(upTo: alphabet.count)] }
            var b = a
            for _ in 0..<random.next(upTo: 3) where !b.isEmpty {
                let position = random.next(upTo: b.count)
                b[position] = random.next(upTo: 2) == 0 ? alphabet[random.next(upTo: alphabet.count)] : b[position] ^ 0x20
            }
            if random.next(upTo: 10) == 0 { b.append(UInt8(ascii: "x")) }
            #expect(Self.fast(a, b) == Self.naive(a, b), "\(a) \(b)")
        }
    }

    @Test func aCaseDifference_atEveryPosition_stillMatches_andAnyOtherDifferenceDoesNot() {
        let name = Array("x-application-version-header".utf8)
        for position in name.indices {
            var upper = name
            upper[position] = ASCII.lower(upper[position]) == upper[position] && upper[position] >= 97 ? upper[position] - 32 : upper[position]
            #expect(Self.fast(name, upper))
            var other = name
            other[position] ^= 0x01
            #expect(!Self.fast(name, other))
        }
    }
}
