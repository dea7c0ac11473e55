import HTTP
import NetworkFixtures
import Testing

@testable import API

/// CORS on every route (docs/api.md, "Browsers and CORS"), through the real server.
@Suite struct CORSTests {
    static let app = "https://app.example"
    static let reader = Token(name: "reader", secret: "reader-secret-0123456789", scopes: [.evaluate])
    static let writer = Token(name: "writer", secret: "writer-secret-0123456789", scopes: [.evaluate, .write])
    static let policy = CORSPolicy(origins: .listed([app]))

    func allowOrigins(_ reply: APIHarness.Reply) -> [String] {
        reply.headers.filter { $0.0.lowercased() == "access-control-allow-origin" }.map(\.1)
    }

    @Test func preflight_withoutAToken_isAnsweredWithTheRoutesMethods() throws {
        let api = try APIHarness(tokens: [Self.reader], cors: Self.policy)
        defer { api.stop() }
        let preflight = try api.call(
            "OPTIONS", "/v1/users/u1/events/opened",
            headers: ["Origin": Self.app, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "authorization,content-type"])
        #expect(preflight.status == 204)
        #expect(preflight.header("Access-Control-Allow-Origin") == Self.app)
        #expect(preflight.header("Access-Control-Allow-Methods") == "DELETE, GET, HEAD, OPTIONS, POST")
        #expect(preflight.header("Access-Control-Allow-Headers")?.contains("Authorization") == true)
        #expect(preflight.header("Vary") == "Origin")
        let stream = try api.call("OPTIONS", "/v1/stream", headers: ["Origin": Self.app, "Access-Control-Request-Method": "GET"])
        #expect(stream.header("Access-Control-Allow-Methods") == "GET, HEAD, OPTIONS")
    }

    /// 403 (not an empty 204) for an origin that is not listed: a browser fails the preflight either way, and a
    /// person with curl reads why.
    @Test func preflight_unlistedOrigin_isRefusedWithoutAllowHeaders() throws {
        let api = try APIHarness(cors: Self.policy)
        defer { api.stop() }
        let preflight = try api.call(
            "OPTIONS", "/v1/users/u1/flags", headers: ["Origin": "https://evil.example", "Access-Control-Request-Method": "GET"])
        #expect(preflight.status == 403)
        #expect(preflight.errorCode == "origin_not_allowed")
        #expect(!preflight.headers.contains { $0.0.lowercased().hasPrefix("access-control-allow") })
        #expect(preflight.header("Vary") == "Origin")
    }

    @Test func preflight_unknownPath_is404CarryingTheHeaders() throws {
        let api = try APIHarness(cors: Self.policy)
        defer { api.stop() }
        let preflight = try api.call("OPTIONS", "/v1/nope", headers: ["Origin": Self.app, "Access-Control-Request-Method": "GET"])
        #expect(preflight.status == 404)
        #expect(allowOrigins(preflight) == [Self.app])
    }

    /// A browser shows a refusal without these headers as a network error: every answer carries them.
    @Test func listedOrigin_everyAnswerCarriesTheHeaders_refusalsIncluded() throws {
        let api = try APIHarness(tokens: [Self.reader, Self.writer], cors: Self.policy)
        defer { api.stop() }
        let origin = ["Origin": Self.app]
        func with(_ token: Token) -> [String: String] {
            origin.merging(["Authorization": "Bearer \(String(decoding: token.secret, as: UTF8.self))"]) { $1 }
        }
        let answers = [
            (200, try api.call("GET", "/v1/users/u1/flags", headers: with(Self.reader))),
            (401, try api.call("GET", "/v1/users/u1/flags", headers: origin)),
            (403, try api.call("PATCH", "/v1/users/u1/context", json: "{}", headers: with(Self.reader))),
            (400, try api.call("PATCH", "/v1/users/u1/context", json: "[", headers: with(Self.writer))),
            (404, try api.call("GET", "/v1/nope", headers: origin)),
            (405, try api.call("PUT", "/v1/users/u1/flags", headers: origin)),
            (200, try api.call("GET", "/healthz", headers: origin)),
            (200, try api.call("POST", "/ofrep/v1/evaluate/flags", json: "{}", headers: with(Self.reader)))
        ]
        for (status, answer) in answers {
            #expect(answer.status == status)
            #expect(allowOrigins(answer) == [Self.app], "\(status)")
            #expect(answer.header("Access-Control-Expose-Headers") == "ETag, Retry-After, X-Request-Id", "\(status)")
            #expect(answer.header("Vary") == "Origin", "\(status)")
        }
        let limited = try APIHarness(rateLimit: (rate: 1, burst: 1), cors: Self.policy)
        defer { limited.stop() }
        _ = try limited.call("GET", "/v1/users/u1/flags", headers: origin)
        let refused = try limited.call("GET", "/v1/users/u1/flags", headers: origin)
        #expect(refused.status == 429)
        #expect(allowOrigins(refused) == [Self.app])
    }

    @Test func unlistedOrigin_getsNoCORSHeaders_butTheAnswerVariesOnOrigin() throws {
        let api = try APIHarness(cors: Self.policy)
        defer { api.stop() }
        for headers in [["Origin": "https://evil.example"], [:]] {
            let answer = try api.call("GET", "/v1/users/u1/flags", headers: headers)
            #expect(answer.status == 200)
            #expect(allowOrigins(answer).isEmpty)
            #expect(answer.header("Vary") == "Origin")
        }
        // Setting `cors` replaces OpenFeature's any-origin default: OFREP follows the list too.
        let ofrep = try api.call("POST", "/ofrep/v1/evaluate/flags", json: "{}", headers: ["Origin": "https://evil.example"])
        #expect(allowOrigins(ofrep).isEmpty)
    }

    @Test func wildcard_allowsAnyOriginOnEveryRoute_withoutCredentials() throws {
        let api = try APIHarness(tokens: [Self.reader], cors: CORSPolicy(origins: .any))
        defer { api.stop() }
        for path in ["/v1/users/u1/flags", "/v1/rules", "/ofrep/v1/events"] {
            let answer = try api.call("GET", path, headers: ["Origin": "https://anyone.example"])
            #expect(answer.status == 401)
            #expect(allowOrigins(answer) == ["*"])
            #expect(answer.header("Access-Control-Allow-Credentials") == nil)
        }
        let preflight = try api.call("OPTIONS", "/v1/rules", headers: ["Origin": "https://anyone.example", "Access-Control-Request-Method": "GET"])
        #expect(preflight.status == 204)
        #expect(preflight.header("Access-Control-Allow-Origin") == "*")
    }

    /// Without `cors` only OpenFeature's routes speak CORS: the rest of the API stays same-origin, and an OPTIONS on
    /// it is still 405.
    @Test func noSetting_onlyOpenFeatureRoutesAllowOtherOrigins() throws {
        let api = try APIHarness()
        defer { api.stop() }
        let rest = try api.call("GET", "/v1/users/u1/flags", headers: ["Origin": Self.app])
        #expect(allowOrigins(rest).isEmpty)
        #expect(rest.header("Vary") == nil)
        #expect(try api.call("OPTIONS", "/v1/users/u1/flags", headers: ["Origin": Self.app, "Access-Control-Request-Method": "GET"]).status == 405)
        let ofrep = try api.call("POST", "/ofrep/v1/evaluate/flags", json: "{}", headers: ["Origin": Self.app])
        #expect(allowOrigins(ofrep) == ["*"])
        let preflight = try api.call("OPTIONS", "/ofrep/v1/evaluate/flags", headers: ["Origin": Self.app, "Access-Control-Request-Method": "POST"])
        #expect(preflight.status == 204)
        #expect(preflight.header("Access-Control-Allow-Methods") == "OPTIONS, POST")
    }

    @Test func streamHead_carriesTheHeaders() throws {
        let api = try APIHarness(cors: Self.policy)
        defer { api.stop() }
        let client = try TestClient(port: api.server.port)
        try client.send("GET /v1/users/u1/stream HTTP/1.1\r\nHost: t\r\nOrigin: \(Self.app)\r\n\r\n")
        let head = try client.readHead()
        #expect(head.status == 200)
        #expect(head.header("Access-Control-Allow-Origin") == Self.app)
        #expect(head.header("Content-Type") == "text/event-stream")
    }
}
