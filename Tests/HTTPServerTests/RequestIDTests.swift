import Testing

@testable import HTTPServer

/// Request ids: the server's are its prefix and a counter in lowercase hex, spelled only when read, and read the
/// same as text and as bytes; a client's own is kept as sent.
@Suite struct RequestIDTests {
    func bytes(_ id: RequestID) -> String { id.withBytes { String(decoding: $0, as: UTF8.self) } }

    @Test(
        arguments: [
            (UInt32(0x578b_52a6), UInt64(1), "578b52a6-1"),
            (0, 0, "0-0"),
            (0x0000_abcd, 0x10, "abcd-10"),
            (UInt32.max, UInt64.max, "ffffffff-ffffffffffffffff"),
            (0x8000_0000, 0x0123_4567_89ab_cdef, "80000000-123456789abcdef")
        ] as [(UInt32, UInt64, String)])
    func numberedIds_areThePrefixAndTheCounterInHex(prefix: UInt32, counter: UInt64, expected: String) {
        let id = RequestID(prefix: RequestIDGenerator.Prefix(prefix), counter: counter)
        #expect(id.text == expected)
        #expect(bytes(id) == expected)
        #expect(expected.utf8.count <= RequestID.maxNumberedBytes)
    }

    @Test func aGenerator_countsFromOne_underItsOwnPrefix() {
        let generator = RequestIDGenerator(prefix: 0xbeef)
        #expect(generator.next().text == "beef-1")
        #expect(generator.next().text == "beef-2")
        for _ in 3...255 { _ = generator.next() }
        #expect(bytes(generator.next()) == "beef-100")
    }

    @Test func aClientsId_isKeptAsSent() {
        let id = RequestID("trace-\u{E9}-42")
        #expect(id.text == "trace-\u{E9}-42")
        #expect(bytes(id) == "trace-\u{E9}-42")
        #expect(RequestID("a") == RequestID("a"))
        #expect(RequestID("a") != RequestID("b"))
    }

    @Test func hexDigits_haveNoLeadingZeros() {
        for shift in 0..<64 {
            let value = UInt64(1) << UInt64(shift)
            let written = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 16) { buffer in
                String(decoding: UnsafeBufferPointer(rebasing: buffer[..<RequestID.writeHex(value, into: buffer)]), as: UTF8.self)
            }
            #expect(written == String(value, radix: 16))
        }
    }
}
