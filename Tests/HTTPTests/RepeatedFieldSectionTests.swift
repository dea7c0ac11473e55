import TestRandom
import Testing

@testable import HTTP

/// A parser takes a request's field section as the last one left it when the bytes and the version are the same
/// (`RepeatedFieldSection`). Whatever came before, each head, or error, must be what a fresh parser makes of the
/// same bytes.
@Suite struct RepeatedFieldSectionTests {
    enum Outcome: Equatable {
        case head(HTTPRequestHead, [HTTPHeaders.Field])
        case failed(HTTPParseError)
    }

    /// What a parser that has seen nothing else makes of one request's head.
    static func fresh(_ bytes: [UInt8]) -> Outcome {
        var parser = HTTPRequestParser()
        parser.feed(bytes)
        do {
            guard case .head(let head)? = try parser.next() else { return .failed(.malformedRequestLine) }
            return .head(head, head.headers.fields)
        } catch {
            return .failed(error)
        }
    }

    /// Feeds `bytes` in pieces of `piece` bytes, asking for the head after each, until it comes or fails.
    static func feedAndTakeHead(_ parser: inout HTTPRequestParser, _ bytes: [UInt8], piece: Int) -> Outcome {
        var offset = 0
        while offset < bytes.count {
            let end = min(offset + piece, bytes.count)
            parser.feed(bytes[offset..<end])
            offset = end
            do {
                if let event = try parser.next() {
                    guard case .head(let head) = event else { return .failed(.malformedRequestLine) }
                    return .head(head, head.headers.fields)
                }
            } catch {
                return .failed(error)
            }
        }
        return .failed(.malformedRequestLine)
    }

    /// Request lines: methods (CONNECT closes whatever the fields say), both versions, and a few that fail.
    static let requestLines = [
        "GET /a HTTP/1.1", "GET /v1/users/u1/flags/promo-banner HTTP/1.1", "POST /b HTTP/1.1", "HEAD /c HTTP/1.1",
        "GET /a HTTP/1.0", "POST /b HTTP/1.0", "CONNECT http://example.com:443 HTTP/1.1", "OPTIONS * HTTP/1.1",
        "GET /a?x=1 HTTP/1.1"
    ]
    static let badRequestLines = ["CONNECT example.com:443 HTTP/1.1", "G\u{1}T /bad HTTP/1.1", "GET /a HTTP/2.0", "GET /a HTTP/1.1 extra"]
    /// Field lines whose sections decide every output: hosts, framing, Connection, Expect, known and other names.
    static let fieldLines = [
        "X-App-Version: 1.2", "User-Agent: curl/8", "Accept: */*", "Content-Length: 0", "Content-Length: 3",
        "Transfer-Encoding: chunked", "Connection: close", "Connection: keep-alive", "Expect: 100-continue",
        "If-None-Match: \"e1\"", "X-Request-Id: r1", "Authorization: Bearer t", "x-app-version: 2.0", "X-Other:  padded  "
    ]
    static let hostLines = ["Host: a", "Host: example.com:8080", "host: a", "Host: [::1]:80"]
    /// Lines that fail a section (or, for a second Host, a request): rarer, so that most sections pass.
    static let troubleLines = [
        "Host: a b", "Host: b", "Content-Length: x", "Transfer-Encoding: gzip", "Expect: nope", "Bad Name: x", " folded"
    ]

    static func section(_ random: inout SplitMix) -> [String] {
        var lines = random.next(upTo: 8) == 0 ? [] : [hostLines[random.next(upTo: hostLines.count)]]
        for _ in 0..<random.next(upTo: 4) { lines.append(fieldLines[random.next(upTo: fieldLines.count)]) }
        if random.next(upTo: 4) == 0 { lines.insert(troubleLines[random.next(upTo: troubleLines.count)], at: random.next(upTo: lines.count + 1)) }
        return lines
    }

    /// A head's bytes; its body, if any, is sent once the head is compared (`finishRequest`).
    static func request(_ random: inout SplitMix, sections: [[String]]) -> [UInt8] {
        // Most lines pass, so that most requests go on to their section.
        let line =
            random.next(upTo: 6) == 0
            ? Self.badRequestLines[random.next(upTo: Self.badRequestLines.count)]
            : Self.requestLines[random.next(upTo: Self.requestLines.count)]
        let section = sections[random.next(upTo: sections.count)]
        // Now and then an empty line first, which a server ignores before a request line (RFC 9112 §2.2).
        let before = random.next(upTo: 8) == 0 ? "\r\n" : ""
        return Array((before + line + "\r\n" + section.map { $0 + "\r\n" }.joined() + "\r\n").utf8)
    }

    @Test(arguments: [UInt64(1), 2, 3, 4])
    func everyHead_isWhatAFreshParserMakes(seed: UInt64) {
        var random = SplitMix(seed: seed)
        // Few sections, so most requests repeat the section of an earlier one, often the one just before.
        let sections: [[String]] = (0..<4).map { _ in Self.section(&random) }
        var hits = 0
        for _ in 0..<1500 {
            let bytes = Self.request(&random, sections: sections)
            // A parser that failed stays failed: each request that fails ends its parser, as it ends a connection.
            var parser = HTTPRequestParser()
            for round in 0..<(1 + random.next(upTo: 8)) {
                let next = round == 0 ? bytes : Self.request(&random, sections: sections)
                let repeated = parser.lastSection != nil
                // Whole, or in pieces: a section that has not all arrived is scanned as it comes.
                let outcome = Self.feedAndTakeHead(&parser, next, piece: random.next(upTo: 3) == 0 ? 1 + random.next(upTo: 9) : next.count)
                #expect(outcome == Self.fresh(next), "\(String(decoding: next, as: UTF8.self))")
                guard case .head(let head, _) = outcome else { break }
                if repeated { hits += 1 }
                // The request's body, chunked ones with a trailer section, then the request's end.
                #expect(Self.finishRequest(&parser, head.framing))
            }
        }
        // The test is about repeats: make sure they happened.
        #expect(hits > 50)
    }

    /// Sends the body the framing announces and reads up to the request's end; false if it does not end there.
    static func finishRequest(_ parser: inout HTTPRequestParser, _ framing: BodyFraming) -> Bool {
        switch framing {
        case .none: break
        case .length(let count): parser.feed(Array(repeating: UInt8(ascii: "b"), count: count))
        case .chunked: parser.feed(Array("3\r\nabc\r\n0\r\nX-Trailer: t\r\n\r\n".utf8))
        }
        while true {
            guard let event = try? parser.next() else { return false }
            switch event {
            case .head: return false
            case .body: continue
            case .end: return true
            }
        }
    }

    /// The heads of two requests sent one after the other on one connection.
    static func twoHeads(_ requests: String) throws -> (HTTPRequestHead, HTTPRequestHead) {
        var parser = HTTPRequestParser()
        parser.feed(Array(requests.utf8))
        guard case .head(let first)? = try parser.next(), case .end? = try parser.next() else { throw ParseFailed() }
        guard case .head(let second)? = try parser.next() else { throw ParseFailed() }
        return (first, second)
    }

    /// The kept list is what the second head gets: with the first head still held, a list parsed afresh would be
    /// a new array; taken from the memo it is the very same one. Fails if the memo is never used.
    @Test func aRepeatedSection_givesTheKeptList() throws {
        // The second section found in place (all of it there), and found by comparison once its lines were
        // scanned (its empty line arriving last).
        for lastPiece in [0, 2] {
            var parser = HTTPRequestParser()
            let second = "GET /b HTTP/1.1\r\nHost: a\r\nX-App-Version: 1.2\r\n\r\n"
            parser.feed(Array(("GET /a HTTP/1.1\r\nHost: a\r\nX-App-Version: 1.2\r\n\r\n" + second.dropLast(lastPiece)).utf8))
            guard case .head(let first)? = try parser.next(), case .end? = try parser.next() else { throw ParseFailed() }
            if lastPiece > 0 {
                #expect(try parser.next() == nil)
                parser.feed(Array(second.suffix(lastPiece).utf8))
            }
            guard case .head(let secondHead)? = try parser.next() else { throw ParseFailed() }
            let firstList = first.headers.fields.withUnsafeBufferPointer { $0.baseAddress }
            let secondList = secondHead.headers.fields.withUnsafeBufferPointer { $0.baseAddress }
            #expect(firstList == secondList)
            #expect(first.target == "/a")
            #expect(secondHead.target == "/b")
        }
        let (first, second) = try Self.twoHeads("GET /a HTTP/1.1\r\nHost: a\r\n\r\nGET /b HTTP/1.1\r\nHost: b\r\n\r\n")
        #expect(first.headers.fields.withUnsafeBufferPointer { $0.baseAddress } != second.headers.fields.withUnsafeBufferPointer { $0.baseAddress })
        #expect(second.headers["Host"] == "b")
    }

    @Test func theSameSectionUnderHTTP10_isDecidedAgain() throws {
        let (first, second) = try Self.twoHeads("GET /a HTTP/1.1\r\nHost: a\r\n\r\nGET /a HTTP/1.0\r\nHost: a\r\n\r\n")
        #expect(first.keepAlive)
        #expect(!second.keepAlive)
        #expect(second.version == .http10)
    }

    @Test func aConnectRequest_withARepeatedSection_stillCloses() throws {
        let (first, second) = try Self.twoHeads("GET /a HTTP/1.1\r\nHost: a\r\n\r\nCONNECT http://a:443 HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(first.keepAlive)
        #expect(!second.keepAlive)
    }

    @Test func aBadRequestLine_withARepeatedSection_isStillRefused() throws {
        var parser = HTTPRequestParser()
        parser.feed(Array("GET /a HTTP/1.1\r\nHost: a\r\n\r\nGET /a HTTP/9.9\r\nHost: a\r\n\r\n".utf8))
        guard case .head? = try parser.next(), case .end? = try parser.next() else { throw ParseFailed() }
        #expect(throws: HTTPParseError.unsupportedVersion) { try parser.next() }
    }

    /// A section found in place skips the bare-CR check of its lines (they passed it), never the request line's.
    @Test func aBareCRInTheRequestLine_beforeARepeatedSection_isStillRefused() throws {
        var parser = HTTPRequestParser()
        parser.feed(Array("GET /a HTTP/1.1\r\nHost: a\r\n\r\nGET /a\rb HTTP/1.1\r\nHost: a\r\n\r\n".utf8))
        guard case .head? = try parser.next(), case .end? = try parser.next() else { throw ParseFailed() }
        #expect(throws: HTTPParseError.bareCarriageReturn) { try parser.next() }
    }

    @Test func aHeldHeadChanged_leavesTheNextHeadAsSent() throws {
        var parser = HTTPRequestParser()
        parser.feed(Array("GET /a HTTP/1.1\r\nHost: a\r\nX-App-Version: 1.2\r\n\r\nGET /b HTTP/1.1\r\nHost: a\r\nX-App-Version: 1.2\r\n\r\n".utf8))
        guard case .head(var first)? = try parser.next(), case .end? = try parser.next() else { throw ParseFailed() }
        first.headers.set("X-App-Version", "9.9")
        guard case .head(let second)? = try parser.next() else { throw ParseFailed() }
        #expect(second.headers[KnownField.appVersion] == "1.2")
        #expect(second.headers["X-App-Version"] == "1.2")
        #expect(first.headers["X-App-Version"] == "9.9")
        #expect(second.target == "/b")
    }

    @Test func aSectionAboveTheKeptSize_isNotKept() throws {
        var parser = HTTPRequestParser()
        let big = "GET /a HTTP/1.1\r\nHost: a\r\nX-Big: \(String(repeating: "b", count: HTTPRequestParser.recycledHeadBytes))\r\n\r\n"
        parser.feed(Array(big.utf8))
        guard case .head? = try parser.next(), case .end? = try parser.next() else { throw ParseFailed() }
        #expect(parser.lastSection == nil)
        parser.feed(Array("GET /a HTTP/1.1\r\nHost: a\r\n\r\n".utf8))
        guard case .head? = try parser.next() else { throw ParseFailed() }
        #expect(parser.lastSection != nil)
    }

    @Test func aLongTargetBeforeARepeatedSection_isNotKeptInTheBox() throws {
        var parser = HTTPRequestParser()
        parser.feed(Array("GET /a HTTP/1.1\r\nHost: a\r\n\r\n".utf8))
        guard case .head? = try parser.next(), case .end? = try parser.next() else { throw ParseFailed() }
        let long = "GET /\(String(repeating: "t", count: HTTPRequestParser.recycledHeadBytes)) HTTP/1.1\r\nHost: a\r\n\r\n"
        parser.feed(Array(long.utf8))
        guard case .head(let head)? = try parser.next() else { throw ParseFailed() }
        #expect(head.target.utf8.count == HTTPRequestParser.recycledHeadBytes + 1)
        #expect(parser.recycled == nil)
    }

    @Test func equalBuffers_compareEqual_andAnyDifferentByte_doesNot() {
        var random = SplitMix(seed: 9)
        for count in 0..<40 {
            let bytes = (0..<count).map { _ in UInt8(truncatingIfNeeded: random.next(upTo: 256)) }
            bytes.withUnsafeBufferPointer { a in
                Array(bytes).withUnsafeBufferPointer { b in #expect(ByteSearch.equal(a, b)) }
            }
            for index in 0..<count {
                var changed = bytes
                changed[index] &+= 1
                bytes.withUnsafeBufferPointer { a in
                    changed.withUnsafeBufferPointer { b in #expect(!ByteSearch.equal(a, b)) }
                }
            }
            let shorter = Array(bytes.dropLast())
            if count > 0 {
                bytes.withUnsafeBufferPointer { a in shorter.withUnsafeBufferPointer { b in #expect(!ByteSearch.equal(a, b)) } }
            }
        }
    }
}
