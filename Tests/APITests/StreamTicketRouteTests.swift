import NetworkFixtures
import Rules
import Testing

@testable import API

/// `POST /v1/stream-tickets` and `?ticket=` on the stream routes, through the real server.
@Suite struct StreamTicketRouteTests {
    static let reader = Token(name: "reader", secret: "reader-secret-0123456789", scopes: [.evaluate])
    static let writer = Token(name: "writer", secret: "writer-secret-0123456789", scopes: [.evaluate, .write])
    static let ops = Token(name: "ops", secret: "admin-secret-0123456789ab", scopes: [.admin])
    static let tokens = [reader, writer, ops]

    static func bearer(_ token: Token) -> [String: String] { ["Authorization": "Bearer \(String(decoding: token.secret, as: UTF8.self))"] }

    func ticket(_ api: APIHarness, _ stream: String, as token: Token = reader) throws -> String {
        let reply = try api.call("POST", "/v1/stream-tickets", json: #"{"stream": "\#(stream)"}"#, headers: Self.bearer(token))
        #expect(reply.status == 200, "\(reply.text)")
        return try #require(reply.body?["ticket"]?.stringValue)
    }

    func openStatus(_ api: APIHarness, _ path: String) throws -> APIHarness.Reply {
        let client = try TestClient(port: api.server.port)
        try client.send("GET \(path) HTTP/1.1\r\nHost: t\r\n\r\n")
        let head = try client.readHead()
        return APIHarness.Reply(status: head.status, headers: head.headers, body: nil, text: "")
    }

    @Test func ticket_opensTheUserStream_thatHearsTheWrite() throws {
        let api = try APIHarness(tokens: Self.tokens)
        defer { api.stop() }
        let issued = try api.call("POST", "/v1/stream-tickets", json: #"{"stream": "/v1/users/u1/stream"}"#, headers: Self.bearer(Self.reader))
        #expect(issued.status == 200)
        #expect(issued.body?["expiresAt"] == "2026-03-10T12:00:30Z")
        #expect(issued.header("Cache-Control") == "no-store")
        let ticket = try #require(issued.body?["ticket"]?.stringValue)
        let stream = try api.stream("/v1/users/u1/stream?include=context&events=context&ticket=\(ticket)")
        _ = try api.call("POST", "/v1/users/u1/events/appStarted", headers: Self.bearer(Self.writer))
        #expect(try stream.readEvents(1)[0].contains(#""appStarted":{"count":1"#))
    }

    @Test func ticket_reused_is401() throws {
        let api = try APIHarness(tokens: Self.tokens)
        defer { api.stop() }
        let ticket = try ticket(api, "/v1/users/u1/stream")
        #expect(try openStatus(api, "/v1/users/u1/stream?ticket=\(ticket)").status == 200)
        let again = try api.call("GET", "/v1/users/u1/stream?ticket=\(ticket)")
        #expect(again.status == 401)
        #expect(again.errorCode == "invalid_ticket")
    }

    @Test func ticket_expired_is401() throws {
        let api = try APIHarness(tokens: Self.tokens)
        defer { api.stop() }
        let ticket = try ticket(api, "/v1/users/u1/stream")
        api.clock.advance(StreamTickets.lifetime)
        #expect(try api.call("GET", "/v1/users/u1/stream?ticket=\(ticket)").errorCode == "invalid_ticket")
    }

    @Test func ticket_forAnotherUser_is401() throws {
        let api = try APIHarness(tokens: Self.tokens)
        defer { api.stop() }
        let forU1 = try ticket(api, "/v1/users/u1/stream")
        #expect(try api.call("GET", "/v1/users/u2/stream?ticket=\(forU1)").status == 401)
        let global = try ticket(api, "/v1/stream", as: Self.ops)
        #expect(try api.call("GET", "/v1/users/u1/stream?ticket=\(global)").status == 401)
    }

    /// A ticket opens streams only: on any other route it is an ordinary query parameter, and the token rules.
    @Test func ticket_onARouteThatIsNotAStream_authorizesNothing() throws {
        let api = try APIHarness(tokens: Self.tokens)
        defer { api.stop() }
        let ticket = try ticket(api, "/v1/users/u1/stream")
        #expect(try api.call("GET", "/v1/users/u1?ticket=\(ticket)").status == 401)
        #expect(try api.call("GET", "/v1/users/u1/flags?ticket=\(ticket)").status == 401)
        // Still unspent: it was never presented to a stream.
        #expect(try openStatus(api, "/v1/users/u1/stream?ticket=\(ticket)").status == 200)
    }

    /// Asking needs the stream's own scope: evaluate for a user's or OpenFeature's, admin for the global one.
    @Test(arguments: [
        ("/v1/users/u1/stream", "reader", 200), ("/v1/users/u1/stream", "ops", 403), ("/v1/stream", "reader", 403),
        ("/v1/stream", "ops", 200), ("/ofrep/v1/events?targetingKey=u1", "reader", 200), ("/v1/users/u1/stream", "", 401)
    ])
    func issue_needsTheStreamsScope(stream: String, token: String, status: Int) throws {
        let api = try APIHarness(tokens: Self.tokens)
        defer { api.stop() }
        let headers = Self.tokens.first { $0.name == token }.map(Self.bearer) ?? [:]
        #expect(try api.call("POST", "/v1/stream-tickets", json: #"{"stream": "\#(stream)"}"#, headers: headers).status == status)
    }

    @Test func globalAndOpenFeatureTickets_openTheirStreams() throws {
        let api = try APIHarness(tokens: Self.tokens)
        defer { api.stop() }
        let global = try ticket(api, "/v1/stream", as: Self.ops)
        #expect(try openStatus(api, "/v1/stream?include=context&ticket=\(global)").status == 200)
        let ofrep = try ticket(api, "/ofrep/v1/events?targetingKey=u1")
        #expect(try openStatus(api, "/ofrep/v1/events?targetingKey=u2&ticket=\(ofrep)").status == 401)
        let again = try ticket(api, "/ofrep/v1/events?targetingKey=u1")
        #expect(try openStatus(api, "/ofrep/v1/events?targetingKey=u1&ticket=\(again)").status == 200)
    }

    @Test(arguments: [
        (#"{}"#, "stream"), (#"{"stream": 1}"#, "stream"), (#"{"stream": "/v1/users/u1"}"#, "stream"),
        (#"{"stream": "/v1/stream", "user": "u"}"#, "user"), (#"[]"#, "body")
    ])
    func issue_badRequest_namesTheField(body: String, field: String) throws {
        let api = try APIHarness(tokens: Self.tokens)
        defer { api.stop() }
        let reply = try api.call("POST", "/v1/stream-tickets", json: body, headers: Self.bearer(Self.reader))
        #expect(reply.status == 400)
        #expect(reply.errorField == field)
    }

    @Test func issue_isRateLimited() throws {
        let api = try APIHarness(rateLimit: (rate: 1, burst: 1))
        defer { api.stop() }
        #expect(try api.call("POST", "/v1/stream-tickets", json: #"{"stream": "/v1/stream"}"#).status == 200)
        #expect(try api.call("POST", "/v1/stream-tickets", json: #"{"stream": "/v1/stream"}"#).status == 429)
    }
}
