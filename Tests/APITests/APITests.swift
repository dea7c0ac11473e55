import Foundation
import Rules
import Store
import Testing

@testable import API
@testable import Engine
@testable import HTTPServer
@testable import specd

@Suite(.serialized) struct APITests {
    @Test func donate_countsAndReportsSummaryChangedAndSeq() throws {
        let api = try APIHarness()
        defer { api.stop() }
        let first = try api.call("POST", "/v1/users/u1/events/appStarted", headers: ["X-App-Version": "1.2"])
        #expect(first.status == 200)
        #expect(first.body?["seq"] == 1)
        #expect(first.body?["event"]?["count"] == 1)
        #expect(first.body?["event"]?["last"]?["appVersion"] == "1.2")
        let second = try api.call("POST", "/v1/users/u1/events/appStarted", json: #"{"at": "2026-03-10T11:00:00Z", "appVersion": "1.3"}"#)
        #expect(second.body?["seq"] == 2)
        #expect(second.body?["event"]?["count"] == 2)
        // Backdated before the first: it becomes `first`; `last` stays the latest by date.
        #expect(second.body?["event"]?["first"]?["at"] == "2026-03-10T11:00:00Z")
        #expect(second.body?["event"]?["first"]?["appVersion"] == "1.3")
        #expect(second.body?["event"]?["last"]?["appVersion"] == "1.2")
        let summary = try api.call("GET", "/v1/users/u1/events/appStarted")
        #expect(summary.body?["summary"]?["count"] == 2)
    }

    @Test func donate_thirdAppStart_firesTheReviewTriggerOnlyWhenNotDelayed() throws {
        // The example's request-review trigger has a delay (fired later on streams); an immediate copy fires at once.
        let rules =
            #"{"flags": {}, "triggers": {"review": {"on": ["appStarted"], "when": {"donations": {"event": "appStarted", "gte": 3}}, "throttle": "1 month"}}}"#
        let api = try APIHarness(rulesText: rules)
        defer { api.stop() }
        for _ in 0..<2 { #expect(try api.call("POST", "/v1/users/u1/events/appStarted").body?["fired"] == []) }
        let third = try api.call("POST", "/v1/users/u1/events/appStarted")
        #expect(third.body?["fired"]?.arrayValue?.first?["trigger"] == "review")
        // Throttled for a month, in the same reducer step as the fire.
        #expect(try api.call("POST", "/v1/users/u1/events/appStarted").body?["fired"] == [])
        #expect(try api.call("GET", "/v1/users/u1").body?["triggers"]?["review"] != nil)
    }

    @Test func context_batchIsAtomicInMemoryAndInTheLog() throws {
        let api = try APIHarness()
        defer { api.stop() }
        #expect(try api.call("PATCH", "/v1/users/u1/context", json: #"{"ops": [{"op": "increment", "counter": "k", "by": 2}]}"#).status == 200)
        let bad = try api.call(
            "PATCH", "/v1/users/u1/context", json: #"{"ops": [{"op": "increment", "counter": "k"}, {"op": "setTimeZone", "tz": "Mars/Olympus"}]}"#)
        #expect(bad.status == 400)
        #expect(bad.errorField == "ops[1].tz")
        let typed = try api.call(
            "PATCH", "/v1/users/u1/context",
            json: #"{"ops": [{"op": "setCounter", "counter": "k", "value": 1}, {"op": "increment", "counter": "k", "by": "x"}]}"#)
        #expect(typed.errorField == "ops[1].by")
        let overflow = try api.call(
            "PATCH", "/v1/users/u1/context",
            json: #"{"ops": [{"op": "setCounter", "counter": "k", "value": 9223372036854775807}, {"op": "increment", "counter": "k"}]}"#)
        #expect(overflow.status == 422)
        #expect(overflow.errorField == "ops[1].by")
        #expect(try api.call("GET", "/v1/users/u1").body?["counters"]?["k"] == 2)
        #expect(api.database.log.lastSeq == 1)
    }

    @Test func flags_etagChangesExactlyWhenTheAnswerChanges() throws {
        let api = try APIHarness()
        defer { api.stop() }
        let first = try api.call("GET", "/v1/users/u1/flags")
        let etag = try #require(first.header("ETag"))
        #expect(try api.call("GET", "/v1/users/u1/flags", headers: ["If-None-Match": etag]).status == 304)
        // A write that changes nothing visible keeps the tag.
        _ = try api.call("PATCH", "/v1/users/u1/context", json: #"{"ops": [{"op": "increment", "counter": "unused", "by": 1}]}"#)
        let stored = try api.call("GET", "/v1/users/u1/flags")
        let afterNoop = try #require(stored.header("ETag"))
        _ = try api.call("PATCH", "/v1/users/u1/context", json: #"{"ops": [{"op": "addSegment", "segment": "vip"}]}"#)
        let changed = try api.call("GET", "/v1/users/u1/flags", headers: ["If-None-Match": afterNoop])
        #expect(changed.status == 200)
        #expect(changed.header("ETag") != afterNoop)
        #expect(changed.body?["flags"]?["discount"]?["value"] == 50)
    }

    @Test func unknownUser_evaluatesEmptyAndIsNotCreated() throws {
        let api = try APIHarness()
        defer { api.stop() }
        #expect(try api.call("GET", "/v1/users/ghost/flags/discount").body?["value"] == 0)
        #expect(try api.call("GET", "/v1/users/ghost").status == 404)
        #expect(api.database.store.userCount == 0)
    }

    @Test func oneFlag_explainAndErrors() throws {
        let api = try APIHarness()
        defer { api.stop() }
        _ = try api.call(
            "PATCH", "/v1/users/u1/context", json: #"{"ops": [{"op": "recordEvent", "event": "last_promo_banner", "at": "2026-03-09T12:00:00Z"}]}"#)
        let explained = try api.call("GET", "/v1/users/u1/flags/promo-banner?explain=1")
        #expect(explained.body?["value"] == false)
        #expect(explained.text.contains("remaining: 172800s"))
        let missing = try api.call("GET", "/v1/users/u1/flags/nope")
        #expect(missing.status == 404)
        #expect(missing.errorCode == "flag_not_found")
        #expect(try api.call("GET", "/v1/users/u1/flags/discount", headers: ["X-App-Version": "one"]).errorField == "X-App-Version")
    }

    @Test func evaluate_inlineContextAtAGivenInstant() throws {
        let api = try APIHarness()
        defer { api.stop() }
        let reply = try api.call(
            "POST", "/v1/evaluate",
            json:
                #"{"context": {"launchedAt": "2026-03-10T11:59:00Z", "counters": {"promo_banner_count": 1}}, "flags": ["promo-banner", "nope"], "at": "2026-03-10T12:00:00Z"}"#
        )
        #expect(reply.body?["flags"]?["promo-banner"]?["value"] == true)
        #expect(reply.body?["flags"]?["nope"]?["errorCode"] == "FLAG_NOT_FOUND")
        let bad = try api.call("POST", "/v1/evaluate", json: #"{"context": {"counters": {"k": "many"}}}"#)
        #expect(bad.status == 400)
        #expect(bad.errorField == "context.counters.k")
        #expect(api.database.store.userCount == 0)
    }

    @Test func errors_haveTheirStatusesAndNameTheField() throws {
        let api = try APIHarness()
        defer { api.stop() }
        #expect(try api.call("POST", "/v1/evaluate", json: "{").errorCode == "invalid_json")
        #expect(try api.call("POST", "/v1/evaluate", json: "{}", headers: ["Content-Type": "text/plain"]).status == 415)
        #expect(try api.call("PATCH", "/v1/users/u1/context", json: #"{"ops": []}"#).errorField == "ops")
        #expect(try api.call("PATCH", "/v1/users/u1/context", json: #"{"ops": [{"op": "explode"}]}"#).errorField == "ops[0].op")
        #expect(try api.call("POST", "/v1/users/u1/events/e", json: #"{"at": "noon"}"#).errorField == "at")
        #expect(try api.call("POST", "/v1/users/u1/events/e", json: #"{"colour": 1}"#).errorField == "colour")
        #expect(try api.call("GET", "/v1/users/u1/nothing").status == 404)
        #expect(try api.call("PUT", "/v1/users/u1").header("Allow") == "DELETE, GET, HEAD")
        let big = String(repeating: "x", count: 2 << 20)
        #expect(try api.call("POST", "/v1/evaluate", json: big).status == 413)
    }

    @Test func erase_thenRestart_userStaysErased() throws {
        let directory = NSTemporaryDirectory() + "specd-api-\(UUID().uuidString)"
        let api = try APIHarness(directory: directory)
        _ = try api.call("POST", "/v1/users/gone/events/appStarted")
        _ = try api.call("POST", "/v1/users/kept/events/appStarted")
        #expect(try api.call("DELETE", "/v1/users/gone").status == 200)
        #expect(try api.call("GET", "/v1/users/gone").status == 404)
        api.stop()
        let restarted = try APIHarness(directory: directory)
        defer { restarted.stop() }
        #expect(try restarted.call("GET", "/v1/users/gone").status == 404)
        #expect(try restarted.call("GET", "/v1/users/kept").status == 200)
    }

    @Test func admin_statusReloadReadyMetrics() throws {
        let api = try APIHarness()
        defer { api.stop() }
        #expect(try api.call("GET", "/v1/admin/status").body?["rules"]?["phase"] == "loaded")
        #expect(try api.call("POST", "/v1/admin/reload").body?["phase"] == "loaded")
        #expect(try api.call("GET", "/readyz").status == 200)
        _ = try api.call("GET", "/v1/users/u1/flags")
        _ = try api.call("HEAD", "/v1/users/u1/flags")
        _ = try api.call("HEAD", "/v1/users/u1/flags")
        let metrics = try api.call("GET", "/metrics")
        #expect(metrics.text.contains(#"specd_http_requests_total{route="/v1/users/{user}/flags",method="GET",status="200"} 1"#))
        // HEAD is answered by the GET route and counted as HEAD.
        #expect(metrics.text.contains(#"specd_http_requests_total{route="/v1/users/{user}/flags",method="HEAD",status="200"} 2"#))
        #expect(!metrics.text.contains("u1"))
    }

    @Test func openAPI_documentsEveryRoute() throws {
        let api = try APIHarness()
        defer { api.stop() }
        let router = API(
            engine: api.engine, hub: api.hub, transport: FixedServerStatus(isDraining: false),
            authenticator: Authenticator(tokens: []), rateLimiter: nil
        ).makeRouter()
        let document = try #require(try api.call("GET", "/openapi.json").body)
        #expect(document["openapi"] == "3.1.0")
        for route in router.table {
            #expect(document["paths"]?[route.pattern]?[route.method.lowercased()] != nil, "\(route.method) \(route.pattern) is not documented")
        }
        #expect(OpenAPIDocument.operations.count == router.table.count)
    }
}
