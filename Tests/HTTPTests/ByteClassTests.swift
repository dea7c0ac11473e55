import Testing

@testable import HTTP

/// The parser's byte classes, checked for every byte against the RFC's grammar written out as text.
@Suite struct ByteClassTests {
    static let tchar = Set("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".utf8)

    @Test func isToken_isExactlyTchar_forEveryByte() {
        for byte in UInt8.min...UInt8.max {
            #expect(ASCII.isToken(byte) == Self.tchar.contains(byte), "byte \(byte)")
        }
    }

    @Test func isFieldValueByte_refusesControlsAndDEL_only() {
        for byte in UInt8.min...UInt8.max {
            let expected = byte == 9 || (byte >= 0x20 && byte != 0x7F)
            #expect(ASCII.isFieldValueByte(byte) == expected, "byte \(byte)")
        }
    }
}
