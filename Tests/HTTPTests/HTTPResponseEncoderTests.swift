import Testing

@testable import HTTP

@Suite struct HTTPResponseEncoderTests {
    let date = "Sun, 06 Nov 1994 08:49:37 GMT"

    func encode(_ response: HTTPResponse, version: HTTPVersion = .http11, keepAlive: Bool = true, isHead: Bool = false) -> String {
        var buffer: [UInt8] = []
        HTTPResponseEncoder.encode(response, version: version, keepAlive: keepAlive, isHead: isHead, date: date, into: &buffer)
        return String(decoding: buffer, as: UTF8.self)
    }

    @Test func encode_json_writesHeadersInFixedOrderThenBody() {
        let response = HTTPResponse.json(.ok, "{}", headers: ["X-Request-Id": "r1"])
        #expect(
            encode(response) == "HTTP/1.1 200 OK\r\nDate: \(date)\r\nContent-Type: application/json; charset=utf-8\r\n"
                + "Content-Length: 2\r\nX-Request-Id: r1\r\n\r\n{}")
    }

    /// The common status lines are written whole; every status, common or not, and a known code with a reason of
    /// its own, reads as its parts would spell it.
    @Test func statusLine_spellsVersionCodeAndReason_forEveryStatus() {
        let statuses: [HTTPStatus] =
            (100...599).map { HTTPStatus(code: $0) } + [HTTPStatus(code: 200, reason: "Fine"), HTTPStatus(code: 304, reason: "Same")]
        for status in statuses {
            for version in [HTTPVersion.http10, .http11] {
                let line = "\(version.text) \(status.code) \(status.reason)\r\n"
                #expect(encode(HTTPResponse(status: status), version: version).hasPrefix(line), "\(line)")
            }
        }
    }

    @Test func encode_closing_addsConnectionClose() {
        #expect(encode(HTTPResponse(status: .badRequest), keepAlive: false).contains("Content-Length: 0\r\nConnection: close\r\n\r\n"))
    }

    @Test func encode_http10KeepAlive_saysKeepAlive() {
        #expect(encode(HTTPResponse(), version: .http10).hasPrefix("HTTP/1.0 200 OK\r\n"))
        #expect(encode(HTTPResponse(), version: .http10).contains("Connection: keep-alive\r\n"))
    }

    @Test func encode_head_keepsContentLengthDropsBody() {
        let text = encode(.json(.ok, "{\"a\":1}"), isHead: true)
        #expect(text.contains("Content-Length: 7\r\n"))
        #expect(text.hasSuffix("\r\n\r\n"))
    }

    @Test func encode_notModified_hasNoFramingOrBody() {
        let text = encode(HTTPResponse(status: .notModified, headers: ["ETag": "\"x\""], body: Array("ignored".utf8)))
        #expect(!text.contains("Content-Length"))
        #expect(text.hasSuffix("ETag: \"x\"\r\n\r\n"))
    }

    @Test func encode_handlerFramingHeaders_areIgnoredNotDoubled() {
        let text = encode(HTTPResponse(headers: ["Content-Length": "99", "Connection": "upgrade"], body: [65]))
        #expect(text.split(separator: "Content-Length", omittingEmptySubsequences: false).count == 2)
        #expect(text.contains("Content-Length: 1\r\n"))
        #expect(!text.contains("upgrade"))
    }

    /// The encoder writes these itself: a handler's own copy is never written among its fields however it is
    /// spelled (its content type goes out once, in its fixed place), and a field of the same length that is none
    /// of them goes out (each managed name is told by its length, then compared).
    @Test(arguments: ["Date", "Connection", "Content-Type", "Content-Length", "Transfer-Encoding"])
    func encode_managedField_isNeverWrittenAsTheHandlers_andItsLengthTwinsAreKept(name: String) {
        for spelling in [name, name.lowercased(), name.uppercased()] {
            let text = encode(HTTPResponse(headers: [spelling: "handler"], body: [65]))
            let expected = name == "Content-Type" ? "\r\nContent-Type: handler\r\nContent-Length: 1\r\n\r\nA" : "\r\nContent-Length: 1\r\n\r\nA"
            #expect(text == "HTTP/1.1 200 OK\r\nDate: \(date)" + expected, "\(spelling)")
        }
        let twin = String(repeating: "x", count: name.utf8.count - 1) + "-"
        let text = encode(HTTPResponse(headers: [twin: "kept"], body: [65]))
        #expect(text.contains("\r\n\(twin): kept\r\n"))
    }

    /// Bytes below CR (tab, and the control bytes around CR and LF) are kept; only CR and LF are dropped.
    @Test func encode_headerValue_keepsEveryByteButCRAndLF() {
        let value = "a\u{9}b\u{B}c\u{C}d\re\nf\u{E}g"
        let text = encode(HTTPResponse(headers: ["X-A": value]))
        #expect(text.contains("X-A: a\u{9}b\u{B}c\u{C}def\u{E}g\r\n"))
        #expect(encode(HTTPResponse(headers: ["X-B": "\r\n"])).contains("X-B: \r\n"))
    }

    @Test func encode_headerValueWithCRLF_cannotSplitTheResponse() {
        let text = encode(HTTPResponse(headers: ["X-A": "a\r\nSet-Cookie: x"]))
        #expect(text.contains("X-A: aSet-Cookie: x\r\n"))
    }

    @Test func encodeHead_chunked_setsTransferEncoding() {
        var buffer: [UInt8] = []
        HTTPResponseEncoder.encodeHead(
            status: .ok, headers: ["Content-Type": "text/event-stream"], framing: .chunked,
            version: .http11, keepAlive: true, date: date, into: &buffer)
        HTTPResponseEncoder.encodeChunk(Array("hello".utf8), into: &buffer)
        buffer += HTTPResponseEncoder.lastChunk
        #expect(
            String(decoding: buffer, as: UTF8.self) == "HTTP/1.1 200 OK\r\nDate: \(date)\r\nContent-Type: text/event-stream\r\n"
                + "Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n")
    }

    @Test(arguments: [
        (0, "Thu, 01 Jan 1970 00:00:00 GMT"), (784_111_777, "Sun, 06 Nov 1994 08:49:37 GMT"),
        (951_782_400, "Tue, 29 Feb 2000 00:00:00 GMT"), (1_795_300_000, "Sat, 21 Nov 2026 22:26:40 GMT")
    ])
    func httpDate_formatsIMFFixdate(seconds: Int, expected: String) {
        #expect(HTTPDate.format(unixSeconds: seconds) == expected)
    }

    @Test func status_reasonsAndBodyRules() {
        #expect(HTTPStatus(code: 404).reason == "Not Found")
        #expect(HTTPStatus(code: 299).reason == "Status 299")
        #expect(HTTPStatus.noContent.forbidsBody)
        #expect(!HTTPStatus.ok.forbidsBody)
    }

    @Test func percentDecoding_decodesAndRejectsMalformed() {
        #expect(PercentDecoding.decode("a%2Fb") == "a/b")
        #expect(PercentDecoding.decode("caf%C3%A9") == "café")
        #expect(PercentDecoding.decode("a%2") == nil)
        #expect(PercentDecoding.decode("%FF") == nil)
        #expect(PercentDecoding.decode("a+b") == "a+b")
        #expect(PercentDecoding.queryItems("flags=a%2Cb&x=1+2&bad=%zz").map { "\($0.name)=\($0.value)" } == ["flags=a,b", "x=1 2"])
    }

    @Test func optionalWhitespace_isTrimmedAtBothEndsOnly() {
        #expect(Substring(" \tapplication/json \t").trimmingOptionalWhitespace == "application/json")
        #expect(Substring("a b").trimmingOptionalWhitespace == "a b")
        #expect(Substring(" \t ").trimmingOptionalWhitespace == "")
        // Only SP and HTAB are optional whitespace; a line feed is not.
        #expect(Substring("\nx").trimmingOptionalWhitespace == "\nx")
    }

    /// The fields the encoder writes itself are known in any case; names of their lengths that are not them (the
    /// first letter differing or not) are a handler's own.
    @Test func managedNames_areKnownInAnyCase_andNoOtherName() {
        for name in HTTPResponseEncoder.managedNames {
            #expect(HTTPResponseEncoder.isManaged(name))
            #expect(HTTPResponseEncoder.isManaged(name.lowercased()))
            #expect(HTTPResponseEncoder.isManaged(name.uppercased()))
        }
        for name in [
            "ETag", "Dave", "dateX", "X-Request-Id", "Content-Typo", "Contents-Type", "Connectio", "Transfer-Encodin",
            "Tonnection", "Lontent-Length", "", "Age"
        ] {
            #expect(!HTTPResponseEncoder.isManaged(name), "\(name)")
        }
    }
}
