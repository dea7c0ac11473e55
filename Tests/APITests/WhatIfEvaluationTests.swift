import Foundation
import NetworkFixtures
import Rules
import Testing

@testable import API
@testable import specd

/// Evaluating a stored user other than as stored now (docs/api.md, "Evaluation"): `POST /v1/evaluate` with a
/// `user` lays the request's context over that user's stored one, as OFREP does; `?at=` on a user's flags asks
/// what they would answer at another instant. Neither stores anything.
@Suite(.serialized) struct WhatIfEvaluationTests {
    static let rules = """
        {"flags": {
          "vip": {"when": {"segment": "vip"}},
          "pro": {"when": {"attr": {"key": "plan", "eq": "pro"}}},
          "rested": {"when": {"cooldown": {"event": "shown", "for": "1h"}}},
          "regular": {"when": {"donations": {"event": "appStarted", "gte": 2}}}}}
        """

    func harness() throws -> APIHarness {
        let api = try APIHarness(rulesText: Self.rules)
        let ops =
            #"{"ops": [{"op": "addSegment", "segment": "vip"}, {"op": "setAttribute", "key": "plan", "value": "free"}, {"op": "recordEvent", "event": "shown"}]}"#
        #expect(try api.call("PATCH", "/v1/users/u1/context", json: ops).status == 200)
        _ = try api.call("POST", "/v1/users/u1/events/appStarted")
        return api
    }

    @Test func evaluate_withUser_mergesTheStoredContextUnderTheInlineOne() throws {
        let api = try harness()
        defer { api.stop() }
        let reply = try api.call("POST", "/v1/evaluate", json: #"{"user": "u1", "context": {"attributes": {"plan": "pro"}, "donations": {}}}"#)
        #expect(reply.status == 200)
        // Stored: the segment and the recent `shown`; inline wins for `plan`.
        #expect(reply.body?["flags"]?["vip"]?["value"] == true)
        #expect(reply.body?["flags"]?["pro"]?["value"] == true)
        #expect(reply.body?["flags"]?["rested"]?["value"] == false)
        // A map key the request sends replaces the stored one: one inline donation summary beats the stored one.
        let replaced = try api.call(
            "POST", "/v1/evaluate", json: #"{"user": "u1", "context": {"donations": {"appStarted": {"count": 5}}}, "flags": ["regular"]}"#)
        #expect(replaced.body?["flags"]?["regular"]?["value"] == true)
        // Stored state is untouched.
        #expect(try api.call("GET", "/v1/users/u1/flags/pro").body?["value"] == false)
    }

    @Test func evaluate_withoutUser_orForAnUnknownUser_isTheInlineContextAlone() throws {
        let api = try harness()
        defer { api.stop() }
        let inlineOnly = try api.call("POST", "/v1/evaluate", json: #"{"context": {"user": "u1"}, "flags": ["vip"]}"#)
        #expect(inlineOnly.body?["flags"]?["vip"]?["value"] == false)
        let unknown = try api.call("POST", "/v1/evaluate", json: #"{"user": "nobody", "context": {"segments": ["vip"]}, "flags": ["vip"]}"#)
        #expect(unknown.body?["flags"]?["vip"]?["value"] == true)
        #expect(try api.call("GET", "/v1/users/nobody").status == 404)
    }

    @Test func userFlags_at_evaluatesTheStoredContextAtThatInstant() throws {
        let api = try harness()
        defer { api.stop() }
        // `shown` was recorded at 12:00; the cooldown ends at 13:00, inclusive.
        #expect(try api.call("GET", "/v1/users/u1/flags/rested").body?["value"] == false)
        #expect(try api.call("GET", "/v1/users/u1/flags/rested?at=2026-03-10T12:59:59.999Z").body?["value"] == false)
        #expect(try api.call("GET", "/v1/users/u1/flags/rested?at=2026-03-10T13:00:00Z").body?["value"] == true)
        let all = try api.call("GET", "/v1/users/u1/flags?at=2026-03-10T13:00:00Z")
        #expect(all.body?["flags"]?["rested"]?["value"] == true)
        #expect(all.body?["flags"]?["vip"]?["value"] == true)
        let explained = try api.call("GET", "/v1/users/u1/flags/rested?at=2026-03-10T12:30:00Z&explain=1")
        #expect(explained.text.contains("remaining: 1800s"))
        // What-if stores nothing: an unknown user stays unknown, and the stored user's answer now is unchanged.
        #expect(try api.call("GET", "/v1/users/nobody/flags?at=2026-03-10T13:00:00Z").status == 200)
        #expect(try api.call("GET", "/v1/users/nobody").status == 404)
        #expect(try api.call("GET", "/v1/users/u1/flags/rested").body?["value"] == false)
    }

    @Test(arguments: ["/v1/users/u1/flags?at=noon", "/v1/users/u1/flags/rested?at=2026-13-01T00:00:00Z", "/v1/users/u1/flags?at="])
    func userFlags_invalidAt_is400NamingTheField(path: String) throws {
        let api = try harness()
        defer { api.stop() }
        let reply = try api.call("GET", path)
        #expect(reply.status == 400)
        #expect(reply.errorCode == "invalid_field")
        #expect(reply.errorField == "at")
    }
}
