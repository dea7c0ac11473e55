import TestRandom
import Testing

@testable import HTTP

/// The word-at-a-time byte search, against the plain byte-by-byte answer.
@Suite struct ByteSearchTests {
    private static func naive(_ byte: UInt8, _ bytes: [UInt8], _ start: Int, _ end: Int) -> Int? {
        bytes[start..<end].firstIndex(of: byte)
    }

    private static func search(_ byte: UInt8, _ bytes: [UInt8], _ start: Int, _ end: Int) -> Int? {
        bytes.withUnsafeBufferPointer { ByteSearch.firstIndex(of: byte, in: $0, from: start, to: end) }
    }

    /// A match in every position of a word and of the tail, at every start offset (so every alignment), with the
    /// bytes around it one above and one below the sought value (where a borrow would mislead a careless test).
    @Test func findsTheFirstMatch_atEveryPositionAndAlignment() {
        for sought: UInt8 in [0, 1, 10, 13, 0x7F, 0x80, 0xFF] {
            for length in 0...40 {
                for start in 0...min(length, 9) {
                    for position in start..<max(start, length) {
                        var bytes = (0..<length).map { $0 % 2 == 0 ? sought &+ 1 : sought &- 1 }
                        bytes[position] = sought
                        #expect(Self.search(sought, bytes, start, length) == position, "\(sought) \(length) \(start) \(position)")
                    }
                    let without = [UInt8](repeating: sought &+ 1, count: length)
                    #expect(Self.search(sought, without, start, length) == nil)
                }
            }
        }
    }

    /// A zero-making byte just below a match: the borrow it raises must not hide the match or report a byte above.
    @Test func aMatchRightAfterAnotherMatch_reportsTheFirst() {
        let bytes: [UInt8] = [1, 10, 10, 0, 10, 11, 10, 10, 10, 10]
        #expect(Self.search(10, bytes, 0, bytes.count) == 1)
        #expect(Self.search(10, bytes, 2, bytes.count) == 2)
        #expect(Self.search(10, bytes, 3, bytes.count) == 4)
        #expect(Self.search(0, bytes, 0, bytes.count) == 3)
        #expect(Self.search(11, bytes, 0, bytes.count) == 5)
    }

    /// Random buffers and ranges, every byte value sought: the same answer as the byte loop, matches past `end`
    /// never reported.
    @Test func randomBuffersAndRanges_agreeWithTheByteLoop() {
        var random = SplitMix(seed: 0x5EA2C4)
        for _ in 0..<3_000 {
            let length = random.next(upTo: 80)
            // A small alphabet, so matches are common.
            let bytes = (0..<length).map { _ in UInt8(random.next(upTo: 6)) &* 51 }
            let start = random.next(upTo: length + 1)
            let end = start + random.next(upTo: length - start + 1)
            let sought = UInt8(random.next(upTo: 6)) &* 51
            #expect(Self.search(sought, bytes, start, end) == Self.naive(sought, bytes, start, end))
            #expect(
                bytes.withUnsafeBufferPointer { ByteSearch.contains(sought, in: $0, start..<end) } == (Self.naive(sought, bytes, start, end) != nil))
        }
    }

    /// Either of two bytes, in random buffers and ranges over a small alphabet (both often present, and the bytes
    /// one above and below them too): the same answer as the byte loop.
    @Test func firstOfTwo_agreesWithTheByteLoop() {
        var random = SplitMix(seed: 0x3F23)
        for _ in 0..<5_000 {
            let length = random.next(upTo: 80)
            let bytes = (0..<length).map { _ in UInt8(random.next(upTo: 8)) &+ 33 }
            let start = random.next(upTo: length + 1)
            let end = start + random.next(upTo: length - start + 1)
            let byte = UInt8(random.next(upTo: 8)) &+ 33
            let other = UInt8(random.next(upTo: 8)) &+ 33
            let found = bytes.withUnsafeBufferPointer { ByteSearch.firstIndex(of: byte, or: other, in: $0, from: start, to: end) }
            #expect(found == bytes[start..<end].firstIndex { $0 == byte || $0 == other }, "\(bytes) \(byte) \(other)")
        }
    }

    /// A byte below the limit anywhere in random buffers, at every word offset and with high bytes around it
    /// (a borrow must not make one up): the same answer as the byte loop.
    @Test func containsByteBelow_agreesWithTheByteLoop() {
        var random = SplitMix(seed: 0xB310)
        let values: [UInt8] = [0, 9, 10, 13, 14, 31, 32, 127, 128, 200, 255]
        for _ in 0..<5_000 {
            let bytes = (0..<random.next(upTo: 40)).map { _ in values[random.next(upTo: values.count)] }
            let limit = values[random.next(upTo: 8)] &+ UInt8(random.next(upTo: 2))
            let found = bytes.withUnsafeBufferPointer { ByteSearch.containsByte(below: limit, in: $0) }
            #expect(found == bytes.contains { $0 < limit }, "\(bytes) below \(limit)")
        }
    }

    /// The first byte outside visible ASCII: every byte value at every position and alignment, among neighbours at
    /// both edges of the range (0x21 and 0x7E, where a borrow or a carry would show), and random mixes.
    @Test func firstNonVisible_agreesWithTheByteLoop() {
        func naive(_ bytes: [UInt8], _ start: Int, _ end: Int) -> Int? {
            bytes[start..<end].firstIndex { $0 <= 0x20 || $0 >= 0x7F }
        }
        func search(_ bytes: [UInt8], _ start: Int, _ end: Int) -> Int? {
            bytes.withUnsafeBufferPointer { ByteSearch.firstIndexOfNonVisible(in: $0, from: start, to: end) }
        }
        for value in 0...255 {
            let byte = UInt8(value)
            for length in [1, 7, 8, 9, 17, 24] {
                for start in 0...min(length - 1, 8) {
                    for position in start..<length {
                        var bytes = (0..<length).map { $0 % 2 == 0 ? UInt8(0x21) : UInt8(0x7E) }
                        bytes[position] = byte
                        let visible = byte > 0x20 && byte < 0x7F
                        #expect(search(bytes, start, length) == (visible ? nil : position), "\(byte) \(length) \(start) \(position)")
                        #expect(search(bytes, start, position) == nil)
                    }
                }
            }
        }
        var random = SplitMix(seed: 0x7A26E7)
        for _ in 0..<3_000 {
            let length = random.next(upTo: 80)
            let alphabet: [UInt8] = [0x00, 0x09, 0x20, 0x21, 0x41, 0x7E, 0x7F, 0x80, 0xC3, 0xFF]
            let bytes = (0..<length).map { _ in random.next(upTo: 4) == 0 ? alphabet[random.next(upTo: alphabet.count)] : 0x61 }
            let start = random.next(upTo: length + 1)
            let end = start + random.next(upTo: length - start + 1)
            #expect(search(bytes, start, end) == naive(bytes, start, end))
        }
    }

    /// Counting and walking every match must be exact: a byte one above the sought value right after a match (`/.`
    /// for `/`) is where the borrow test flags falsely.
    @Test func everyMatch_isCountedAndWalkedExactly() {
        func walk(_ byte: UInt8, _ bytes: [UInt8]) -> [Int] {
            var found: [Int] = []
            bytes.withUnsafeBufferPointer { ByteSearch.forEachIndex(of: byte, in: $0) { found.append($0) } }
            return found
        }
        let slashes = Array("/v1//users/./u1/.../flags/promo-banner/././/".utf8)
        let expected = slashes.indices.filter { slashes[$0] == UInt8(ascii: "/") }
        #expect(walk(UInt8(ascii: "/"), slashes) == expected)
        #expect(slashes.withUnsafeBufferPointer { ByteSearch.count(UInt8(ascii: "/"), in: $0) } == expected.count)
        var random = SplitMix(seed: 0xC0_FFEE)
        for _ in 0..<3_000 {
            let sought = UInt8(random.next(upTo: 256))
            let length = random.next(upTo: 70)
            // Neighbours of the sought value, and the values a carry or a borrow would turn into it.
            let alphabet: [UInt8] = [sought, sought &+ 1, sought &- 1, sought ^ 0x80, 0x00, 0x7F, 0x80, 0xFF]
            let bytes = (0..<length).map { _ in alphabet[random.next(upTo: alphabet.count)] }
            let expected = bytes.indices.filter { bytes[$0] == sought }
            #expect(walk(sought, bytes) == expected)
            #expect(bytes.withUnsafeBufferPointer { ByteSearch.count(sought, in: $0) } == expected.count)
        }
    }
}
