import HTTP
import HTTPFixtures
import TestRandom
import Testing

@Suite struct HTTPRequestParserTests {
    @Test(arguments: ValidRequests.all.map(\.name))
    func parse_validRequest_sameResultWholeByteByByteAndSplitAnywhere(name: String) throws {
        let fixture = ValidRequests.all.first { $0.name == name }!
        let outcomes = dripFeedOutcomes(fixture.bytes)
        guard case .requests(let requests) = outcomes[0].1 else {
            Issue.record("whole feed failed: \(outcomes[0].1)")
            return
        }
        #expect(requests.count == 1)
        let request = try #require(requests.first)
        #expect(request.head.method == fixture.method)
        #expect(request.head.target == fixture.target)
        #expect(request.head.version == fixture.version)
        #expect(request.head.keepAlive == fixture.keepAlive)
        #expect(request.head.expectsContinue == fixture.expectsContinue)
        #expect(request.body == fixture.body)
        #expect(request.trailers == fixture.trailers)
        for (strategy, outcome) in outcomes.dropFirst() {
            #expect(outcome == outcomes[0].1, "\(strategy) disagrees with whole")
        }
    }

    @Test(arguments: ValidRequests.all.map(\.name))
    func parse_validRequestPipelinedTwice_yieldsBothInOrder(name: String) {
        let fixture = ValidRequests.all.first { $0.name == name }!
        guard case .requests(let single) = feed([fixture.bytes[...]]) else {
            Issue.record("single parse failed")
            return
        }
        let twice = fixture.bytes + fixture.bytes
        #expect(feed([twice[...]]) == .requests(single + single))
        #expect(feed(twice.indices.map { twice[$0...$0] }) == .requests(single + single))
    }

    @Test func parse_allValidRequestsPipelinedInOneBuffer_yieldsEachInOrder() {
        let all = ValidRequests.all.flatMap(\.bytes)
        guard case .requests(let requests) = feed([all[...]]) else {
            Issue.record("pipelined parse failed")
            return
        }
        #expect(requests.map(\.head.target) == ValidRequests.all.map(\.target))
        #expect(requests.map(\.body) == ValidRequests.all.map(\.body))
    }

    @Test func fixtures_coverAtLeastTwentyValidRequests() {
        #expect(ValidRequests.all.count >= 20)
    }

    @Test func parse_headerLookup_isCaseInsensitiveAndKeepsRepeats() throws {
        let bytes = Array("GET / HTTP/1.1\r\nhost: a\r\nAccept: x\r\naccept: y\r\n\r\n".utf8)
        guard case .requests(let requests) = feed([bytes[...]]) else { throw ParseFailed() }
        let headers = requests[0].head.headers
        #expect(headers["HOST"] == "a")
        #expect(headers.values("Accept") == ["x", "y"])
    }

    /// The framing fields are noted as each line is parsed (`FramingFields`), by name length then name: any case,
    /// any position, and no field whose name merely contains one of theirs or has the same length.
    @Test func parse_framingFields_areFoundInAnyCaseAndPosition() throws {
        let bytes = Array(
            ("POST / HTTP/1.1\r\nX-Host: b\r\nDate: x\r\ncOnTeNt-LeNgTh: 3\r\nHOST: a\r\ncoNNection: CLOSE\r\n"
                + "eXpEcT: 100-continue\r\nexpect: 100-Continue\r\nContent-Lengths: 9\r\nAccept-Charset: 7\r\n"
                + "X-Transfer-Codes: chunked\r\n\r\nabc").utf8)
        guard case .requests(let requests) = feed([bytes[...]]) else { throw ParseFailed() }
        #expect(requests.count == 1)
        #expect(requests[0].body == Array("abc".utf8))
        #expect(!requests[0].head.keepAlive)
        #expect(requests[0].head.expectsContinue)
    }

    /// A field of a framing field's length but another name changes nothing.
    @Test func parse_fieldsOfAFramingFieldsLength_areNotTakenForIt() throws {
        let bytes = Array("GET / HTTP/1.1\r\nHost: a\r\nKeep-Alive: close\r\nAccept-Charset: 7\r\n\r\n".utf8)
        guard case .requests(let requests) = feed([bytes[...]]) else { throw ParseFailed() }
        #expect(requests[0].head.keepAlive)
        #expect(requests[0].body.isEmpty)
        let dateOnly = Array("GET / HTTP/1.1\r\nDate: a\r\n\r\n".utf8)
        #expect(feed([dateOnly[...]]) == .failed(.missingHost, completedBefore: 0))
    }

    /// Field lines of one name are one list (RFC 9110 §5.3): an expectation other than 100-continue on any `Expect`
    /// line is refused, as it is when both share one line. Before, only the first line was checked.
    @Test func parse_anUnknownExpectation_onALaterLine_isRefused() {
        let twoLines = Array("POST / HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nExpect: nonsense\r\nContent-Length: 1\r\n\r\nx".utf8)
        #expect(feed([twoLines[...]]) == .failed(.unsupportedExpectation, completedBefore: 0))
        let oneLine = Array("POST / HTTP/1.1\r\nHost: a\r\nExpect: 100-continue, nonsense\r\nContent-Length: 1\r\n\r\nx".utf8)
        #expect(feed([oneLine[...]]) == .failed(.unsupportedExpectation, completedBefore: 0))
    }

    @Test func parse_framingFields_inAnyCase_areRefusedWhenTheyConflict() {
        let duplicateHost = Array("GET / HTTP/1.1\r\nhost: a\r\nHOST: a\r\n\r\n".utf8)
        #expect(feed([duplicateHost[...]]) == .failed(.duplicateHost, completedBefore: 0))
        let both = Array("POST / HTTP/1.1\r\nHost: a\r\ntransfer-ENCODING: chunked\r\ncontent-length: 1\r\n\r\n".utf8)
        #expect(feed([both[...]]) == .failed(.contentLengthWithTransferEncoding, completedBefore: 0))
        let twoLengths = Array("POST / HTTP/1.1\r\nHost: a\r\nCONTENT-LENGTH: 1\r\ncontent-length: 1\r\n\r\nx".utf8)
        #expect(feed([twoLengths[...]]) == .failed(.duplicateContentLength, completedBefore: 0))
        let noHost = Array("GET / HTTP/1.1\r\nHosts: a\r\n\r\n".utf8)
        #expect(feed([noHost[...]]) == .failed(.missingHost, completedBefore: 0))
    }

    @Test func parse_headReturnedBeforeBodyArrives_soExpectContinueCanBeAnswered() throws {
        var parser = HTTPRequestParser()
        parser.feed(Array("POST /x HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n".utf8))
        guard case .head(let head) = try parser.next() else { throw ParseFailed() }
        #expect(head.expectsContinue)
        #expect(try parser.next() == nil)
        parser.feed(Array("abc".utf8))
        #expect(try parser.next() == .body(Array("abc".utf8)))
        #expect(try parser.next() == .end(trailers: [:]))
        #expect(parser.isIdle)
    }

    @Test func parse_afterError_keepsFailingWithoutReadingOn() {
        var parser = HTTPRequestParser()
        parser.feed(Array("GET / HTTP/1.1\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n".utf8))
        #expect(throws: HTTPParseError.missingHost) { try parser.next() }
        #expect(throws: HTTPParseError.missingHost) { try parser.next() }
    }

    /// The request target ends at its space: a byte that is not visible ASCII before that space is an invalid
    /// target, a line with no space after the target a malformed one, an empty target too.
    @Test(
        arguments: [
            ("GET /a\u{1}b HTTP/1.1", HTTPParseError.invalidTarget),
            ("GET /caf\u{E9} HTTP/1.1", .invalidTarget),
            ("GET /a\tb HTTP/1.1", .invalidTarget),
            ("GET /a\u{7F} HTTP/1.1", .invalidTarget),
            ("GET /a\tHTTP/1.1", .malformedRequestLine),
            ("GET /a\u{1}", .malformedRequestLine),
            ("GET /abcdefghijklmnop", .malformedRequestLine),
            ("GET  /a HTTP/1.1", .malformedRequestLine),
            ("GET /a  HTTP/1.1", .malformedRequestLine),
            ("GET /a HTTP/1.1 ", .malformedRequestLine),
            ("GET /a HTTP/2.0", .unsupportedVersion),
            ("G\u{1}T /a HTTP/1.1", .invalidMethod)
        ] as [(String, HTTPParseError)])
    func parse_requestLine_isRefusedWithItsOwnError(line: String, error: HTTPParseError) {
        var parser = HTTPRequestParser()
        parser.feed(Array((line + "\r\nHost: a\r\n\r\n").utf8))
        #expect(throws: error) { try parser.next() }
    }

    @Test func parse_targetsOfEveryLengthAroundAWord_areReadWhole() throws {
        for length in 1...40 {
            let target = "/" + String(repeating: "a", count: length - 1)
            var parser = HTTPRequestParser()
            parser.feed(Array("GET \(target) HTTP/1.1\r\nHost: a\r\n\r\n".utf8))
            guard case .head(let head)? = try parser.next() else {
                Issue.record("no head for a target of \(length) bytes")
                continue
            }
            #expect(head.target == target)
        }
    }

    @Test func parse_oversizedContentLength_refusedAtHeadBeforeAnyBody() {
        var parser = HTTPRequestParser(limits: HTTPLimits(maxBodyBytes: 10))
        parser.feed(Array("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 11\r\n\r\n".utf8))
        #expect(throws: HTTPParseError.bodyTooLarge) { try parser.next() }
    }

    @Test func parse_requestLineOverLimit_failsBeforeLineEnds() {
        var parser = HTTPRequestParser(limits: HTTPLimits(maxRequestLineBytes: 16))
        parser.feed(Array("GET /aaaaaaaaaaaaaaaaaaaaaaaa".utf8))
        #expect(throws: HTTPParseError.requestLineTooLong) { try parser.next() }
    }

    @Test func path_stripsQueryAndAbsoluteFormAuthority() {
        #expect(HTTPRequestHead(method: "GET", target: "/a/b?x=1").path == "/a/b")
        #expect(HTTPRequestHead(method: "GET", target: "/a/b?x=1").query == "x=1")
        #expect(HTTPRequestHead(method: "GET", target: "http://h:1/p?q").path == "/p")
        #expect(HTTPRequestHead(method: "GET", target: "http://h").path == "/")
    }

    /// Path and query are cut at byte offsets: every shape of target, short (stored inline) and long, with and
    /// without a fragment or an empty query, and non-ASCII text kept whole.
    @Test(
        arguments: [
            ("/", "/", nil), ("/a", "/a", nil), ("/a?", "/a", ""), ("/a#f", "/a", nil), ("/a?b=1#f", "/a", "b=1"),
            ("/v1/users/some-long-user-id/flags/promo-banner?explain=1", "/v1/users/some-long-user-id/flags/promo-banner", "explain=1"),
            ("https://example.com//x/y?z", "//x/y", "z"), ("http://h:8080", "/", nil), ("*", "*", nil), ("/é/ü?ß=1", "/é/ü", "ß=1")
        ] as [(String, String, String?)])
    func pathAndQuery_cutAtTheirDelimiters(target: String, path: String, query: String?) {
        let head = HTTPRequestHead(method: "GET", target: target)
        #expect(head.path == path)
        #expect(head.query.map(String.init) == query)
    }

    /// Random origin-form targets of many lengths, `?` and `#` at every word offset, against the definition: the
    /// path ends at the first `?` or `#`, the query runs from the first `?` to the first `#` after it.
    @Test(arguments: [UInt64(1), 2, 3])
    func pathAndQuery_randomTargets_matchTheDefinition(seed: UInt64) {
        var random = SplitMix(seed: seed)
        let pieces = ["a", "/", "?", "#", "=", "bcdefgh", "%20", "é"]
        for _ in 0..<2_000 {
            let target = "/" + (0..<random.next(upTo: 30)).map { _ in pieces[random.next(upTo: pieces.count)] }.joined()
            let head = HTTPRequestHead(method: "GET", target: target)
            let pathEnd = target.firstIndex { $0 == "?" || $0 == "#" } ?? target.endIndex
            #expect(head.path == target[..<pathEnd], "\(target)")
            let expectedQuery = target.firstIndex(of: "?").map { mark in
                let rest = target[target.index(after: mark)...]
                return rest[..<(rest.firstIndex(of: "#") ?? rest.endIndex)]
            }
            #expect(head.query == expectedQuery, "\(target)")
        }
    }
}

struct ParseFailed: Error {}
