import HTTP
import Testing

/// A bare CR anywhere in a request head is refused as such (RFC 9112 §2.2), whatever else is wrong with the head.
/// The parser looks for one only once a head has failed (`makeHead`): these tests put a CR at every position of
/// several heads, alone and after a first head whose field section the second may repeat.
@Suite struct BareCarriageReturnTests {
    static let heads = [
        "GET /v1/users/u1/flags/promo-banner HTTP/1.1\r\nHost: a\r\nX-App-Version: 1.2\r\n\r\n",
        "POST /v1/users/u1/events/appStarted HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n",
        "POST /upload HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nExpect: 100-continue\r\n\r\n",
        "OPTIONS * HTTP/1.0\r\nConnection: keep-alive\r\nAccept:  */*\t\r\n\r\n"
    ]

    /// Heads without a body, so a second head follows each at once.
    static let bodiless = [
        heads[0], heads[3], "POST /v1/users/u1/events/appStarted HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n"
    ]

    /// A CR put at every position from the head's first byte to its last LF, exclusive: it is then inside some
    /// line. One in the final empty line makes that a field line, so each changed head gets an empty line more.
    static func withCR(_ head: String) -> [[UInt8]] {
        let bytes = Array(head.utf8)
        return (0..<bytes.count).map { position in
            var changed = bytes
            changed.insert(0x0D, at: position)
            return changed + [0x0D, 0x0A]
        }
    }

    @Test(arguments: heads)
    func aCRAtAnyPosition_isRefusedAsABareCR(head: String) {
        for bytes in Self.withCR(head) {
            var parser = HTTPRequestParser()
            parser.feed(bytes)
            #expect(throws: HTTPParseError.bareCarriageReturn, "\(String(decoding: bytes, as: UTF8.self).debugDescription)") {
                try parser.next()
            }
        }
    }

    @Test(arguments: bodiless)
    func aCRAtAnyPosition_ofAHeadRepeatingTheLastSection_isRefusedAsABareCR(head: String) throws {
        let first = Array(head.utf8)
        for bytes in Self.withCR(head) {
            var parser = HTTPRequestParser()
            parser.feed(first + bytes)
            guard case .head? = try parser.next(), case .end? = try parser.next() else {
                Issue.record("the first head did not parse")
                return
            }
            #expect(throws: HTTPParseError.bareCarriageReturn, "\(String(decoding: bytes, as: UTF8.self).debugDescription)") {
                try parser.next()
            }
        }
    }

    /// The heads themselves parse: the CR is what each changed one gets wrong.
    @Test(arguments: heads)
    func theHeadsWithoutACR_parse(head: String) throws {
        var parser = HTTPRequestParser()
        parser.feed(Array(head.utf8))
        guard case .head? = try parser.next() else {
            Issue.record("no head")
            return
        }
    }
}
