import Foundation
import NetworkFixtures
import Rules
import Testing

@testable import Engine

/// Expiring values and dependent flags over HTTP, on the daemon `Daemon.assemble` builds (docs/api.md, "Expiring
/// values"; docs/rules.md, "prerequisite").
@Suite(.serialized) struct ExpiryAPITests {
    static let rules = #"""
        {"flags": {"beta": {"when": {"segment": "beta"}},
                   "beta-banner": {"when": {"all": [{"prerequisite": {"flag": "beta", "equals": true}}, {"not": {"eventExists": "seen"}}]}}}}
        """#
    static let start = ISO8601.parse("2026-03-10T12:00:00Z")!
    static let expiry = ISO8601.parse("2026-03-10T13:00:00Z")!

    @Test func expiry_isPushedAtItsInstant_forTheValueAndItsDependent() throws {
        let api = try APIHarness(rulesText: Self.rules)
        defer { api.stop() }
        let client = try api.stream("/v1/users/u1/stream")
        let write = try api.call("PATCH", "/v1/users/u1/context", json: #"{"ops": [{"op": "addSegment", "segment": "beta", "ttl": "1h"}]}"#)
        #expect(write.status == 200)
        let written = try client.readEvents(2)
        #expect(written[0].contains(#""key":"beta","value":true"#))
        #expect(written[1].contains(#""key":"beta-banner","value":true"#))
        #expect(api.engine.nextDue == Self.expiry)
        api.clock.advance(Self.expiry - Self.start - 1)
        api.engine.runDue(now: api.clock.now())
        #expect(api.engine.nextDue == Self.expiry)
        api.clock.advance(1)
        api.engine.runDue(now: api.clock.now())
        let pushed = try client.readEvents(2)
        #expect(pushed[0].contains(#""key":"beta","value":false,"previous":true"#))
        #expect(pushed[1].contains(#""key":"beta-banner","value":false,"previous":true"#))
    }

    @Test func context_showsPendingExpiries_andDropsTheValueAtTheInstant() throws {
        let api = try APIHarness(rulesText: Self.rules)
        defer { api.stop() }
        _ = try api.call(
            "PATCH", "/v1/users/u1/context",
            json:
                #"{"ops": [{"op": "addSegment", "segment": "beta", "expiresAt": "2026-03-10T13:00:00Z"}, {"op": "setAttribute", "key": "plan", "value": "pro", "ttl": 60}]}"#
        )
        let context = try api.call("GET", "/v1/users/u1").body
        #expect(context?["segments"] == ["beta"])
        #expect(context?["expires"]?["segments"]?["beta"] == "2026-03-10T13:00:00Z")
        #expect(context?["expires"]?["attributes"]?["plan"] == "2026-03-10T12:01:00Z")
        #expect(try api.call("GET", "/v1/users/u1/flags/beta-banner").body?["value"] == true)
        api.clock.advance(Self.expiry - Self.start)
        let later = try api.call("GET", "/v1/users/u1").body
        #expect(later?["segments"] == [])
        #expect(later?["attributes"]?["plan"] == nil)
        #expect(later?["expires"] == nil)
        #expect(try api.call("GET", "/v1/users/u1/flags/beta-banner").body?["value"] == false)
    }

    struct BadOp: CustomTestStringConvertible, Sendable {
        let op: String
        let field: String
        var testDescription: String { op }
    }

    static let badOps: [BadOp] = [
        .init(op: #"{"op": "setFlag", "flag": "f", "value": true, "ttl": "1h", "expiresAt": "2026-03-11T00:00:00Z"}"#, field: "ops[0].expiresAt"),
        .init(op: #"{"op": "setAttribute", "key": "k", "value": 1, "ttl": "0s"}"#, field: "ops[0].ttl"),
        .init(op: #"{"op": "setAttribute", "key": "k", "value": 1, "ttl": 0}"#, field: "ops[0].ttl"),
        .init(op: #"{"op": "addSegment", "segment": "s", "ttl": "-1h"}"#, field: "ops[0].ttl"),
        .init(op: #"{"op": "addSegment", "segment": "s", "ttl": "soon"}"#, field: "ops[0].ttl"),
        .init(op: #"{"op": "addSegment", "segment": "s", "expiresAt": "tomorrow"}"#, field: "ops[0].expiresAt"),
        .init(op: #"{"op": "increment", "counter": "c", "ttl": "1h"}"#, field: "ops[0].ttl"),
        .init(op: #"{"op": "removeSegment", "segment": "s", "expiresAt": "2026-03-11T00:00:00Z"}"#, field: "ops[0].expiresAt")
    ]

    @Test(arguments: badOps)
    func badExpiry_is400_namingTheField(_ test: BadOp) throws {
        let api = try APIHarness(rulesText: Self.rules)
        defer { api.stop() }
        let reply = try api.call("PATCH", "/v1/users/u1/context", json: #"{"ops": [\#(test.op)]}"#)
        #expect(reply.status == 400)
        #expect(reply.errorField == test.field)
    }

    @Test func expiresAtInThePast_isAccepted_andTheValueReadsAsMissingAtOnce() throws {
        let api = try APIHarness(rulesText: Self.rules)
        defer { api.stop() }
        let reply = try api.call(
            "PATCH", "/v1/users/u1/context", json: #"{"ops": [{"op": "addSegment", "segment": "beta", "expiresAt": "2026-03-10T11:00:00Z"}]}"#)
        #expect(reply.status == 200)
        #expect(try api.call("GET", "/v1/users/u1").body?["segments"] == [])
    }

    @Test func restart_keepsThePendingExpiry() throws {
        let directory = NSTemporaryDirectory() + "specd-api-\(UUID().uuidString)"
        let first = try APIHarness(directory: directory, rulesText: Self.rules)
        _ = try first.call("PATCH", "/v1/users/u1/context", json: #"{"ops": [{"op": "addSegment", "segment": "beta", "ttl": "1h"}]}"#)
        first.stop()
        let second = try APIHarness(directory: directory, rulesText: Self.rules)
        defer { second.stop() }
        #expect(try second.call("GET", "/v1/users/u1").body?["expires"]?["segments"]?["beta"] == "2026-03-10T13:00:00Z")
        #expect(try second.call("GET", "/v1/users/u1/flags/beta").body?["value"] == true)
        second.clock.advance(Self.expiry - Self.start)
        #expect(try second.call("GET", "/v1/users/u1/flags/beta").body?["value"] == false)
    }

    /// With the real clock: the expiry reaches the stream within 100 ms of its instant, with no write.
    @Test func expiry_arrivesWithin100ms_onTheRealClock() throws {
        let api = try APIHarness(rulesText: Self.rules, realClock: true)
        defer { api.stop() }
        let client = try api.stream("/v1/users/u1/stream")
        _ = try api.call("PATCH", "/v1/users/u1/context", json: #"{"ops": [{"op": "addSegment", "segment": "beta", "ttl": 1}]}"#)
        let expires = try #require(try api.call("GET", "/v1/users/u1").body?["expires"]?["segments"]?["beta"]?.stringValue.flatMap(ISO8601.parse))
        _ = try client.readEvents(2)
        let pushed = try client.readEvents(2)
        let arrived = SystemClock().now()
        #expect(pushed[0].contains(#""key":"beta","value":false"#))
        #expect(pushed[1].contains(#""key":"beta-banner","value":false"#))
        let lateness = arrived - expires
        #expect(lateness >= 0 && lateness < 100, "arrived \(lateness) ms after the instant")
    }
}
