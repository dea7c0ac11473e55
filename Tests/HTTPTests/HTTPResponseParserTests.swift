import HTTP
import Testing

/// One response as the tests compare it: head, the body parts joined, trailers — or the error that stopped it.
struct ParsedResponse: Equatable {
    var head: HTTPResponseHead
    var body: [UInt8]
    var trailers: HTTPHeaders
}

enum ResponseOutcome: Equatable {
    case responses([ParsedResponse])
    case failed(HTTPResponseError, after: [ParsedResponse])
}

/// Feeds the pieces in order, pulling every event after each, then ends the input when `close` is set.
func parseResponses(
    _ pieces: [ArraySlice<UInt8>], methods: [String] = [], close: Bool = false, limits: HTTPResponseLimits = .default
)
    -> ResponseOutcome
{
    var parser = HTTPResponseParser(limits: limits)
    var done: [ParsedResponse] = []
    var current: ParsedResponse?
    var methodIndex = 0
    func expectNext(_ parser: inout HTTPResponseParser) {
        parser.expectResponse(toMethod: methodIndex < methods.count ? methods[methodIndex] : "GET")
        methodIndex += 1
    }
    expectNext(&parser)
    func drain(_ parser: inout HTTPResponseParser) throws(HTTPResponseError) {
        while let event = try parser.next() {
            switch event {
            case .head(let head): current = ParsedResponse(head: head, body: [], trailers: HTTPHeaders())
            case .body(let part): current?.body += part
            case .end(let trailers):
                if var response = current {
                    response.trailers = trailers
                    done.append(response)
                }
                current = nil
                expectNext(&parser)
            }
        }
    }
    do {
        for piece in pieces {
            parser.feed(piece)
            try drain(&parser)
        }
        if close {
            parser.endInput()
            try drain(&parser)
        }
    } catch {
        return .failed(error, after: done)
    }
    return .responses(done)
}

/// Whole, one byte at a time, and split at every index: every way must agree (a parser that depends on where
/// reads were cut is wrong for some real connection).
func dripFeedResponses(
    _ bytes: [UInt8], methods: [String] = [], close: Bool = false, limits: HTTPResponseLimits = .default
)
    -> [(String, ResponseOutcome)]
{
    var outcomes = [("whole", parseResponses([bytes[...]], methods: methods, close: close, limits: limits))]
    outcomes.append(("byte by byte", parseResponses(bytes.indices.map { bytes[$0...$0] }, methods: methods, close: close, limits: limits)))
    for split in stride(from: 1, to: bytes.count, by: max(1, bytes.count / 40)) {
        outcomes.append(("split at \(split)", parseResponses([bytes[..<split], bytes[split...]], methods: methods, close: close, limits: limits)))
    }
    return outcomes
}

private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

@Suite struct HTTPResponseParserTests {
    struct Case: Sendable, CustomStringConvertible {
        let description: String
        let text: String
        var methods: [String] = []
        var close = false
        let statuses: [Int]
        let bodies: [String]
        var keepAlive: [Bool]? = nil
    }

    static let valid: [Case] = [
        Case(
            description: "content-length", text: "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", statuses: [200], bodies: ["hello"],
            keepAlive: [true]),
        Case(
            description: "chunked with extension and trailer",
            text: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;x=1\r\nhello\r\n6\r\n world\r\n0\r\nX-Sum: 1\r\n\r\n",
            statuses: [200], bodies: ["hello world"]),
        Case(
            description: "until close", text: "HTTP/1.1 200 OK\r\n\r\nstream of bytes", close: true, statuses: [200], bodies: ["stream of bytes"],
            keepAlive: [false]),
        Case(
            description: "100 continue skipped", text: "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok",
            statuses: [201], bodies: ["ok"]),
        Case(
            description: "204 ignores length", text: "HTTP/1.1 204 No Content\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx",
            statuses: [204, 200], bodies: ["", "x"]),
        Case(description: "304 no body", text: "HTTP/1.1 304 Not Modified\r\nContent-Length: 10\r\n\r\n", statuses: [304], bodies: [""]),
        Case(
            description: "HEAD has no body", text: "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nab",
            methods: ["HEAD", "GET"], statuses: [200, 200], bodies: ["", "ab"]),
        Case(description: "bare LF lines", text: "HTTP/1.1 200 OK\nContent-Length: 2\n\nok", statuses: [200], bodies: ["ok"]),
        Case(
            description: "HTTP/1.0 closes", text: "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok", statuses: [200], bodies: ["ok"],
            keepAlive: [false]),
        Case(
            description: "HTTP/1.0 keep-alive", text: "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\nok", statuses: [200],
            bodies: ["ok"], keepAlive: [true]),
        Case(
            description: "connection close", text: "HTTP/1.1 500 Oops\r\nConnection: close\r\nContent-Length: 0\r\n\r\n", statuses: [500],
            bodies: [""], keepAlive: [false]),
        Case(description: "no reason phrase", text: "HTTP/1.1 200\r\nContent-Length: 0\r\n\r\n", statuses: [200], bodies: [""]),
        Case(description: "identical lengths", text: "HTTP/1.1 200 OK\r\nContent-Length: 2, 2\r\n\r\nok", statuses: [200], bodies: ["ok"]),
        Case(
            description: "two pipelined",
            text: "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\naHTTP/1.1 404 Not Found\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nb\r\n0\r\n\r\n",
            statuses: [200, 404], bodies: ["a", "b"])
    ]

    @Test(arguments: valid)
    func parse_validResponse_sameResultWholeByteByByteAndSplitAnywhere(_ fixture: Case) {
        let outcomes = dripFeedResponses(bytes(fixture.text), methods: fixture.methods, close: fixture.close)
        guard case .responses(let responses) = outcomes[0].1 else {
            Issue.record("whole feed failed: \(outcomes[0].1)")
            return
        }
        #expect(responses.map(\.head.status) == fixture.statuses)
        #expect(responses.map { String(decoding: $0.body, as: UTF8.self) } == fixture.bodies)
        if let keepAlive = fixture.keepAlive { #expect(responses.map(\.head.keepAlive) == keepAlive) }
        for (strategy, outcome) in outcomes.dropFirst() { #expect(outcome == outcomes[0].1, "\(strategy) disagrees with whole") }
    }

    struct Bad: Sendable, CustomStringConvertible {
        let description: String
        let text: String
        var close = false
        let error: HTTPResponseError
    }

    static let malformed: [Bad] = [
        Bad(description: "garbage", text: "hello there\r\n\r\n", error: .malformedStatusLine),
        Bad(description: "HTTP/2", text: "HTTP/2.0 200 OK\r\n\r\n", error: .unsupportedVersion),
        Bad(description: "status letters", text: "HTTP/1.1 2x0 OK\r\n\r\n", error: .malformedStatusLine),
        Bad(description: "101", text: "HTTP/1.1 101 Switching Protocols\r\n\r\n", error: .unexpectedUpgrade),
        Bad(description: "space in name", text: "HTTP/1.1 200 OK\r\nBad Name: x\r\n\r\n", error: .invalidHeaderName),
        Bad(description: "control in value", text: "HTTP/1.1 200 OK\r\nX: a\u{1}b\r\n\r\n", error: .invalidHeaderValue(name: "X")),
        Bad(description: "length letters", text: "HTTP/1.1 200 OK\r\nContent-Length: 12a\r\n\r\n", error: .invalidContentLength),
        Bad(description: "negative length", text: "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", error: .invalidContentLength),
        Bad(
            description: "differing lengths", text: "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
            error: .conflictingContentLength),
        Bad(
            description: "length and chunked", text: "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n",
            error: .contentLengthWithTransferEncoding),
        Bad(description: "gzip, chunked", text: "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", error: .unsupportedTransferCoding),
        Bad(description: "bad chunk size", text: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", error: .invalidChunkSize),
        Bad(
            description: "huge chunk size", text: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffffff\r\n",
            error: .invalidChunkSize),
        Bad(description: "chunk without CRLF", text: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\naXY", error: .invalidChunkTerminator),
        Bad(description: "closed before response", text: "", close: true, error: .endOfInput(during: .beforeResponse)),
        Bad(description: "closed in head", text: "HTTP/1.1 200 OK\r\nContent-", close: true, error: .endOfInput(during: .head)),
        Bad(description: "closed in body", text: "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", close: true, error: .endOfInput(during: .body)),
        Bad(
            description: "closed in chunk", text: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab", close: true,
            error: .endOfInput(during: .body))
    ]

    @Test(arguments: malformed)
    func parse_malformedResponse_failsWithTheSameErrorHoweverFed(_ fixture: Bad) {
        for (strategy, outcome) in dripFeedResponses(bytes(fixture.text), close: fixture.close) {
            guard case .failed(let error, _) = outcome else {
                Issue.record("\(strategy): parsed \(outcome)")
                continue
            }
            #expect(error == fixture.error, "\(strategy)")
        }
    }

    @Test func parse_headLargerThanLimit_failsWithHeadTooLarge() {
        let text = "HTTP/1.1 200 OK\r\nX-Big: " + String(repeating: "a", count: 200) + "\r\n\r\n"
        let limits = HTTPResponseLimits(maxHeadBytes: 100)
        for (strategy, outcome) in dripFeedResponses(bytes(text), limits: limits) {
            #expect(outcome == .failed(.headTooLarge, after: []), "\(strategy)")
        }
    }

    @Test func parse_endlessHeadWithoutLineEnd_failsOnceOverLimit() {
        var parser = HTTPResponseParser(limits: HTTPResponseLimits(maxHeadBytes: 1024))
        parser.feed(bytes("HTTP/1.1 200 OK\r\nX: "))
        #expect(throws: Never.self) { try parser.next() }
        parser.feed([UInt8](repeating: UInt8(ascii: "a"), count: 2000))
        #expect(throws: HTTPResponseError.headTooLarge) { try parser.next() }
    }

    @Test func parse_moreHeadersThanLimit_failsWithTooManyHeaders() {
        let fields = (0..<101).map { "X-\($0): v\r\n" }.joined()
        #expect(parseResponses([bytes("HTTP/1.1 200 OK\r\n" + fields + "\r\n")[...]]) == .failed(.tooManyHeaders, after: []))
        let hundred = (0..<99).map { "X-\($0): v\r\n" }.joined()
        guard case .responses(let ok) = parseResponses([bytes("HTTP/1.1 200 OK\r\n" + hundred + "Content-Length: 0\r\n\r\n")[...]]) else {
            Issue.record("100 headers refused")
            return
        }
        #expect(ok.map(\.head.headers.count) == [100])
    }

    @Test(arguments: [
        ("HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\nhello world", false),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n6\r\nhello \r\n5\r\nworld\r\n0\r\n\r\n", false),
        ("HTTP/1.1 200 OK\r\n\r\nhello world", true)
    ])
    func parse_bodyOverCallersLimit_failsWithBodyTooLarge(text: String, close: Bool) {
        let limits = HTTPResponseLimits(maxBodyBytes: 10)
        for (strategy, outcome) in dripFeedResponses(bytes(text), close: close, limits: limits) {
            guard case .failed(let error, _) = outcome else {
                Issue.record("\(strategy): \(outcome)")
                continue
            }
            #expect(error == .bodyTooLarge, "\(strategy)")
        }
        #expect(dripFeedResponses(bytes(text), close: close, limits: HTTPResponseLimits(maxBodyBytes: 11)).allSatisfy { !isFailure($0.1) })
    }

    @Test func parse_afterError_keepsFailing() {
        var parser = HTTPResponseParser()
        parser.feed(bytes("nonsense\r\n"))
        #expect(throws: HTTPResponseError.malformedStatusLine) { try parser.next() }
        parser.feed(bytes("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"))
        #expect(throws: HTTPResponseError.malformedStatusLine) { try parser.next() }
    }

    @Test func parse_randomBytes_neverTraps() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<300 {
            var input: [UInt8] = Array("HTTP/1.1 200 OK\r\n".utf8)
            for _ in 0..<200 {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                let alphabet = Array("0123456789abcdefHTTP/1. \r\n:;-chunkedContent-LengthTransfer-Encoding".utf8)
                input.append(alphabet[Int(state >> 33) % alphabet.count])
            }
            _ = parseResponses(input.indices.map { input[$0...$0] }, close: true)
        }
    }

    private func isFailure(_ outcome: ResponseOutcome) -> Bool {
        if case .failed = outcome { return true }
        return false
    }
}
