import Foundation
import Rules
import Store
import Testing

@testable import API
@testable import Engine
@testable import HTTPServer
@testable import specd

@Suite(.serialized) struct AuthTests {
    static let tokens = [
        Token(name: "reader", secret: "reader-secret-0123456789", scopes: [.evaluate]),
        Token(name: "app", secret: "app-secret-0123456789abcd", scopes: [.evaluate, .write]),
        Token(name: "ops", secret: "admin-secret-0123456789ab", scopes: [.admin])
    ]

    /// Each token × each route: 401 without or with a wrong token, 403 without the scope, through with it.
    @Test func scopeMatrix_everyTokenOnEveryRoute() throws {
        let api = try APIHarness(tokens: Self.tokens)
        defer { api.stop() }
        _ = try api.call("POST", "/v1/users/u1/events/e", headers: ["Authorization": "Bearer app-secret-0123456789abcd"])
        let router = API(
            engine: api.engine, hub: api.hub, transport: FixedServerStatus(isDraining: false),
            authenticator: Authenticator(tokens: []), rateLimiter: nil
        ).makeRouter()
        for route in router.table {
            let path = route.pattern.replacingOccurrences(of: "{user}", with: "u1").replacingOccurrences(of: "{event}", with: "e")
                .replacingOccurrences(of: "{key}", with: "discount")
            let body: String? =
                route.method == "GET" || route.method == "DELETE"
                ? nil : (route.pattern.hasSuffix("context") ? #"{"ops": [{"op": "toggleFlag", "flag": "f"}]}"# : "{}")
            guard let scope = route.scope else {
                #expect(try api.call(route.method, path, json: body).status != 401, "\(route.pattern) should be public")
                continue
            }
            #expect(try api.call(route.method, path, json: body).status == 401, "\(route.method) \(route.pattern) without a token")
            #expect(try api.call(route.method, path, json: body, headers: ["Authorization": "Bearer wrong-secret-0123456789"]).status == 401)
            for token in Self.tokens {
                let secret = String(decoding: token.secret, as: UTF8.self)
                for header in [["Authorization": "Bearer \(secret)"], ["X-API-Key": secret]] {
                    let status = try api.call(route.method, path, json: body, headers: header).status
                    if token.scopes.contains(scope) {
                        #expect(status != 401 && status != 403, "\(token.name) on \(route.method) \(route.pattern): \(status)")
                    } else {
                        #expect(status == 403, "\(token.name) on \(route.method) \(route.pattern): \(status)")
                    }
                }
            }
        }
    }

    @Test func constantTimeEquals_comparesWholeInputs() {
        #expect(Authenticator.constantTimeEquals(Array("abc".utf8), Array("abc".utf8)))
        #expect(!Authenticator.constantTimeEquals(Array("abc".utf8), Array("abd".utf8)))
        #expect(!Authenticator.constantTimeEquals(Array("abc".utf8), Array("abcd".utf8)))
    }

    @Test func noTokens_refusesANonLoopbackAddress() {
        #expect(throws: UsageError("refusing to listen on 0.0.0.0 without tokens: configure tokens or use a loopback address")) {
            try DaemonOptions.resolve(arguments: ["--host", "0.0.0.0"], environment: [:])
        }
    }
}
