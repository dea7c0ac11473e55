import Foundation
import NetworkFixtures
import Rules
import Testing

@testable import API
@testable import specd

/// `POST /ofrep/v1/track` (a specd extension; docs/api.md, "Tracking"): OpenFeature's `track()` as a donation,
/// closing the loop track → donation → re-evaluation → SSE and OFREP notifications.
@Suite(.serialized) struct TrackTests {
    static let rules = """
        {"flags": {"buyer": {"when": {"donations": {"event": "purchase", "gte": 1}}},
                   "loyal": {"when": {"donations": {"event": "purchase", "gte": 2}}}}}
        """
    static let app = Token(name: "app", secret: "app-secret-0123456789abcd", scopes: [.evaluate, .write])
    static let reader = Token(name: "reader", secret: "reader-secret-0123456789", scopes: [.evaluate])
    static let appKey = ["Authorization": "Bearer app-secret-0123456789abcd"]
    static let track =
        #"{"context": {"targetingKey": "u1", "plan": "pro"}, "trackingEventName": "purchase", "trackingEventDetails": {"value": 9.99, "currency": "EUR"}}"#

    @Test func track_donates_reEvaluates_andNotifiesSSEAndOFREP() throws {
        let api = try APIHarness(tokens: [Self.app], rulesText: Self.rules)
        defer { api.stop() }
        let flags = try api.stream("/v1/users/u1/stream", headers: Self.appKey)
        let refetch = try api.stream("/ofrep/v1/events?targetingKey=u1", headers: Self.appKey)
        let before = try api.call("POST", "/ofrep/v1/evaluate/flags/buyer", json: #"{"context": {"targetingKey": "u1"}}"#, headers: Self.appKey)
        #expect(before.body?["value"] == false)

        let reply = try api.call("POST", "/ofrep/v1/track", json: Self.track, headers: Self.appKey)
        #expect(reply.status == 202)
        let seq = try #require(reply.body?["seq"]?.numberValue?.int)
        #expect(seq > 0)

        // The donation is stored as any other: count, first and last.
        let summary = try api.call("GET", "/v1/users/u1/events/purchase", headers: Self.appKey)
        #expect(summary.body?["summary"]?["count"] == 1)
        // The flag changed: a `flag` event on the user's stream with the write's seq as id, and a refetch.
        let event = try flags.readEvents(1)[0]
        #expect(event.contains("event: flag"))
        #expect(event.contains("id: \(seq)"))
        #expect(event.contains(#""key":"buyer""#))
        #expect(try refetch.readEvents(1)[0].contains(#""type":"refetchEvaluation""#))
        let after = try api.call("POST", "/ofrep/v1/evaluate/flags/buyer", json: #"{"context": {"targetingKey": "u1"}}"#, headers: Self.appKey)
        #expect(after.body?["value"] == true)
        // The other context attributes were not written: a track is a donation only.
        #expect(try api.call("GET", "/v1/users/u1", headers: Self.appKey).body?["attributes"]?["plan"] == nil)
        #expect(api.engine.metrics.counter("track_events_total") == 1)
    }

    @Test func track_needsTheWriteScope() throws {
        let api = try APIHarness(tokens: [Self.app, Self.reader], rulesText: Self.rules)
        defer { api.stop() }
        #expect(try api.call("POST", "/ofrep/v1/track", json: Self.track).status == 401)
        let refused = try api.call("POST", "/ofrep/v1/track", json: Self.track, headers: ["Authorization": "Bearer reader-secret-0123456789"])
        #expect(refused.status == 403)
        #expect(try api.call("GET", "/v1/users/u1", headers: Self.appKey).status == 404)
        #expect(try api.call("POST", "/ofrep/v1/track", json: Self.track, headers: ["X-API-Key": "app-secret-0123456789abcd"]).status == 202)
    }

    @Test(arguments: [
        (#"{"trackingEventName": "purchase"}"#, "context"),
        (#"{"context": "u1", "trackingEventName": "purchase"}"#, "context"),
        (#"{"context": {}, "trackingEventName": "purchase"}"#, "context.targetingKey"),
        (#"{"context": {"targetingKey": 7}, "trackingEventName": "purchase"}"#, "context.targetingKey"),
        (#"{"context": {"targetingKey": ""}, "trackingEventName": "purchase"}"#, "context.targetingKey"),
        (#"{"context": {"targetingKey": "u\u0001"}, "trackingEventName": "purchase"}"#, "context.targetingKey"),
        (#"{"context": {"targetingKey": "u1"}}"#, "trackingEventName"),
        (#"{"context": {"targetingKey": "u1"}, "trackingEventName": ""}"#, "trackingEventName"),
        (#"{"context": {"targetingKey": "u1"}, "trackingEventName": ["purchase"]}"#, "trackingEventName"),
        (#"{"context": {"targetingKey": "u1"}, "trackingEventName": "e", "trackingEventDetails": 3}"#, "trackingEventDetails"),
        (#"{"context": {"targetingKey": "u1"}, "trackingEventName": "e", "trackingEventDetails": {"value": "3"}}"#, "trackingEventDetails.value"),
        (#"[]"#, "body")
    ])
    func track_badBody_is400NamingTheField(body: String, field: String) throws {
        let api = try APIHarness(rulesText: Self.rules)
        defer { api.stop() }
        let reply = try api.call("POST", "/ofrep/v1/track", json: body)
        #expect(reply.status == 400)
        #expect(reply.errorField == field)
        #expect(try api.call("GET", "/v1/users/u1").status == 404)
    }

    @Test func track_emptyOrMalformedBody_is400_andAnEventNamePastTheKeyLimit_is422() throws {
        let api = try APIHarness(rulesText: Self.rules)
        defer { api.stop() }
        #expect(try api.call("POST", "/ofrep/v1/track", json: "").status == 400)
        #expect(try api.call("POST", "/ofrep/v1/track", json: "{").errorCode == "invalid_json")
        let long = String(repeating: "e", count: 10_000)
        let reply = try api.call("POST", "/ofrep/v1/track", json: #"{"context": {"targetingKey": "u1"}, "trackingEventName": "\#(long)"}"#)
        #expect(reply.status == 422)
        #expect(reply.errorField == "trackingEventName")
    }

    @Test func track_cors_preflightWithoutAuth_andTheAnswerExposesHeaders() throws {
        let api = try APIHarness(tokens: [Self.app], rulesText: Self.rules)
        defer { api.stop() }
        let preflight = try api.call("OPTIONS", "/ofrep/v1/track")
        #expect(preflight.status == 204)
        #expect(preflight.header("Access-Control-Allow-Methods")?.contains("POST") == true)
        #expect(preflight.header("Access-Control-Allow-Headers")?.contains("Authorization") == true)
        let answer = try api.call("POST", "/ofrep/v1/track", json: Self.track, headers: Self.appKey)
        #expect(answer.header("Access-Control-Allow-Origin") != nil)
    }
}
