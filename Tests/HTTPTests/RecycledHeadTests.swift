import HTTP
import HTTPFixtures
import TestRandom
import Testing

/// A parser reuses its last head's box and header list for the next request once nothing else holds that head.
/// Whatever came before, each head must be what a fresh parser makes of the same bytes, and a head still held
/// must never change.
@Suite struct RecycledHeadTests {
    /// The head a parser that has seen nothing else makes of `bytes`.
    static func freshHead(_ bytes: [UInt8]) throws -> HTTPRequestHead {
        var parser = HTTPRequestParser()
        parser.feed(bytes)
        guard case .head(let head)? = try parser.next() else { throw ParseFailed() }
        return head
    }

    /// Every fixture, plus heads above the size a parser keeps, with many fields and with framing fields.
    static let requests: [[UInt8]] =
        ValidRequests.all.map(\.bytes) + [
            Array("GET /big HTTP/1.1\r\nHost: a\r\nX-Big: \(String(repeating: "b", count: 3000))\r\n\r\n".utf8),
            Array(("GET /many HTTP/1.1\r\nHost: a\r\n" + (0..<40).map { "X-F\($0): \($0)\r\n" }.joined() + "\r\n").utf8),
            Array("POST /p HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\nConnection: close\r\n\r\nhi".utf8),
            Array("GET /q?x=1 HTTP/1.0\r\nConnection: keep-alive\r\n\r\n".utf8),
            // Targets kept in the box's room: one longer than any before it, then a short one.
            Array("GET /v1/users/a-rather-long-user-identifier/flags/promo-banner?at=2026-01-01T00%3A00%3A00Z HTTP/1.1\r\nHost: a\r\n\r\n".utf8),
            Array("GET /s HTTP/1.1\r\nHost: a\r\n\r\n".utf8),
            // Fields found by their noted place (`KnownField`), at different places from one request to the next.
            Array("GET /k HTTP/1.1\r\nHost: a\r\nX-App-Version: 1.2\r\nIf-None-Match: \"e\"\r\nX-Request-Id: r1\r\n\r\n".utf8),
            Array("GET /k HTTP/1.1\r\nX-Request-Id: r2\r\nHost: a\r\nAuthorization: Bearer t\r\nX-App-Version: 2.0\r\n\r\n".utf8),
            Array("POST /k HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nContent-Length: 2\r\nOrigin: o\r\n\r\n{}".utf8)
        ]
    static let names = [
        "Host", "Content-Length", "Connection", "Transfer-Encoding", "X-Big", "Content-Type", "If-None-Match", "X-App-Version",
        "X-Request-Id", "Origin", "Authorization", "X-API-Key", "Last-Event-ID"
    ]

    @Test(arguments: [UInt64(1), 2, 3])
    func headsDroppedBetweenRequests_areWhatAFreshParserMakes(seed: UInt64) throws {
        var random = SplitMix(seed: seed)
        var parser = HTTPRequestParser()
        for _ in 0..<300 {
            let bytes = Self.requests[random.next(upTo: Self.requests.count)]
            parser.feed(bytes)
            var sawHead = false
            while let event = try parser.next() {
                guard case .head(let head) = event else { continue }
                sawHead = true
                let fresh = try Self.freshHead(bytes)
                #expect(head == fresh)
                #expect(head.headers.fields == fresh.headers.fields)
                for name in Self.names {
                    #expect(head.headers[name] == fresh.headers[name], "\(name)")
                }
            }
            #expect(sawHead)
        }
    }

    @Test func aHeadStillHeld_isNeverChangedByTheNextRequest() throws {
        var parser = HTTPRequestParser()
        var held: [(head: HTTPRequestHead, target: String, fields: [HTTPHeaders.Field])] = []
        for bytes in Self.requests + Self.requests.reversed() {
            parser.feed(bytes)
            while let event = try parser.next() {
                if case .head(let head) = event { held.append((head, head.target, head.headers.fields)) }
            }
        }
        for (head, target, fields) in held {
            #expect(head.target == target)
            #expect(head.headers.fields == fields)
        }
    }
}
