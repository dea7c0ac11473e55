import Foundation
import Rules
import Store
import Testing

@testable import API
@testable import Engine
@testable import HTTPServer
@testable import specd

@Suite(.serialized) struct OFREPTests {
    static let rules = #"""
        {"flags": {
          "promo": {"when": {"cooldown": {"event": "shown", "for": "1h"}}},
          "color": {"state": "ENABLED", "variants": {"red": "red", "blue": "blue"}, "defaultVariant": "red",
                    "targeting": {"if": [{"==": [{"var": "plan"}, "pro"]}, "blue", null]}, "metadata": {"team": "web"}},
          "ratio": {"state": "ENABLED", "variants": {"zero": 0.0, "half": 0.5}, "defaultVariant": "zero"},
          "off": {"state": "DISABLED", "variants": {"on": true, "off": false}, "defaultVariant": "on"},
          "nodefault": {"state": "ENABLED", "variants": {"a": "a"}}}}
        """#

    @Test func single_successShapes_keepLexicalNumbers_andOmitValueWhenUndecided() throws {
        let api = try APIHarness(rulesText: Self.rules)
        defer { api.stop() }
        let color = try api.call("POST", "/ofrep/v1/evaluate/flags/color", json: #"{"context": {"targetingKey": "u1", "plan": "pro"}}"#)
        #expect(color.text == #"{"key":"color","reason":"TARGETING_MATCH","variant":"blue","value":"blue","metadata":{"team":"web"}}"#)
        let native = try api.call("POST", "/ofrep/v1/evaluate/flags/promo", json: "{}")
        #expect(native.body?["variant"] == "true")
        #expect(try api.call("POST", "/ofrep/v1/evaluate/flags/ratio", json: "{}").text.contains(#""value":0.0"#))
        let disabled = try api.call("POST", "/ofrep/v1/evaluate/flags/off")
        #expect(disabled.body?["reason"] == "DISABLED")
        #expect(disabled.body?["value"] == nil)
        #expect(try api.call("POST", "/ofrep/v1/evaluate/flags/nodefault", json: #"{"context": {}}"#).body?["value"] == nil)
    }

    /// flagd passes the context to targeting as sent: an empty `targetingKey` reads as `""`, not as absent (flagd
    /// parity, class 8).
    @Test(arguments: [
        (#"{"context": {"targetingKey": ""}}"#, "empty"), (#"{"context": {}}"#, "absent"), (#"{"context": {"targetingKey": "u1"}}"#, "u1")
    ])
    func single_targetingKey_reachesTargetingAsSent(body: String, expected: String) throws {
        let rules =
            #"{"flags": {"key": {"state": "ENABLED", "variants": {"empty": 1, "absent": 2, "u1": 3}, "defaultVariant": "absent", "#
            + #""targeting": {"if": [{"===": [{"var": "targetingKey"}, ""]}, "empty", {"var": "targetingKey"}]}}}}"#
        let api = try APIHarness(rulesText: rules)
        defer { api.stop() }
        #expect(try api.call("POST", "/ofrep/v1/evaluate/flags/key", json: body).body?["variant"] == .string(expected))
    }

    @Test func single_errors() throws {
        let api = try APIHarness(rulesText: Self.rules)
        defer { api.stop() }
        let missing = try api.call("POST", "/ofrep/v1/evaluate/flags/ghost", json: "{}")
        #expect(missing.status == 404)
        #expect(missing.body?["errorCode"] == "FLAG_NOT_FOUND")
        #expect(missing.body?["metadata"] == [:])
        let invalid = try api.call("POST", "/ofrep/v1/evaluate/flags/color", json: "{not json")
        #expect(invalid.status == 400)
        #expect(invalid.body?["errorCode"] == "INVALID_CONTEXT")
    }

    @Test func storedContext_isMergedUnderTheRequest() throws {
        let api = try APIHarness(rulesText: Self.rules)
        defer { api.stop() }
        _ = try api.call("PATCH", "/v1/users/u1/context", json: #"{"ops": [{"op": "setAttribute", "key": "plan", "value": "pro"}]}"#)
        #expect(try api.call("POST", "/ofrep/v1/evaluate/flags/color", json: #"{"context": {"targetingKey": "u1"}}"#).body?["value"] == "blue")
        #expect(
            try api.call("POST", "/ofrep/v1/evaluate/flags/color", json: #"{"context": {"targetingKey": "u1", "plan": "free"}}"#).body?["value"]
                == "red")
    }

    @Test func bulk_etagChangesWithTheContextAndTheClock() throws {
        let api = try APIHarness(rulesText: Self.rules)
        defer { api.stop() }
        _ = try api.call("PATCH", "/v1/users/u1/context", json: #"{"ops": [{"op": "recordEvent", "event": "shown"}]}"#)
        let body = #"{"context": {"targetingKey": "u1"}}"#
        let first = try api.call("POST", "/ofrep/v1/evaluate/flags", json: body)
        let etag = try #require(first.header("ETag"))
        #expect(first.body?["flags"]?.arrayValue?.count == 5)
        #expect(first.body?["eventStreams"]?.arrayValue?.first?["endpoint"]?["requestUri"] == "/ofrep/v1/events?targetingKey=u1")
        #expect(try api.call("POST", "/ofrep/v1/evaluate/flags", json: body, headers: ["If-None-Match": etag]).status == 304)
        #expect(try api.call("POST", "/ofrep/v1/evaluate/flags/", json: body, headers: ["If-None-Match": etag]).status == 304)
        let changed = try api.call(
            "POST", "/ofrep/v1/evaluate/flags", json: #"{"context": {"targetingKey": "u1", "plan": "pro"}}"#, headers: ["If-None-Match": etag])
        #expect(changed.status == 200)
        api.clock.advance(3_600_000)
        let later = try api.call("POST", "/ofrep/v1/evaluate/flags?flagConfigEtag=x", json: body, headers: ["If-None-Match": etag])
        #expect(later.status == 200)
        #expect(later.header("ETag") != etag)
    }

    @Test func eventStream_sendsRefetchWithin100msOfAWrite() throws {
        let api = try APIHarness(rulesText: Self.rules)
        defer { api.stop() }
        let client = try api.stream("/ofrep/v1/events?targetingKey=u1")
        let started = ContinuousClock.now
        _ = try api.call("PATCH", "/v1/users/u1/context", json: #"{"ops": [{"op": "setAttribute", "key": "plan", "value": "pro"}]}"#)
        let event = try client.readEvents(1)[0]
        #expect(ContinuousClock.now - started < .milliseconds(100))
        #expect(event.contains(#""type":"refetchEvaluation""#))
        #expect(event.contains("event: message"))
    }

    @Test func cors_preflightAndExposedETag() throws {
        let api = try APIHarness(rulesText: Self.rules)
        defer { api.stop() }
        let preflight = try api.call("OPTIONS", "/ofrep/v1/evaluate/flags")
        #expect(preflight.status == 204)
        #expect(preflight.header("Access-Control-Allow-Headers")?.contains("X-API-Key") == true)
        // OFREP reads X-App-Version, so a browser must be allowed to send it.
        #expect(preflight.header("Access-Control-Allow-Headers")?.contains("X-App-Version") == true)
        let answer = try api.call("POST", "/ofrep/v1/evaluate/flags", json: "{}")
        #expect(answer.header("Access-Control-Expose-Headers")?.contains("ETag") == true)
        #expect(answer.headers.filter { $0.0.lowercased() == "access-control-allow-origin" }.count == 1)
    }

    /// Without `Access-Control-Allow-Origin` a browser SDK sees a refusal as a network error and cannot tell
    /// 401 from 429: every OFREP answer carries it.
    @Test func cors_everyOFREPAnswerCarriesAllowOrigin_refusalsIncluded() throws {
        let tokens = [
            Token(name: "web", secret: "web-secret-0123456789abcd", scopes: [.evaluate]),
            Token(name: "ops", secret: "ops-secret-0123456789abcd", scopes: [.admin])
        ]
        let api = try APIHarness(tokens: tokens, rulesText: Self.rules)
        defer { api.stop() }
        let answers = [
            (401, try api.call("POST", "/ofrep/v1/evaluate/flags", json: "{}")),
            (401, try api.call("POST", "/ofrep/v1/evaluate/flags/color", json: "{}", headers: ["X-API-Key": "wrong-secret-0123456789ab"])),
            (403, try api.call("POST", "/ofrep/v1/evaluate/flags/color", json: "{}", headers: ["X-API-Key": "ops-secret-0123456789abcd"])),
            (403, try api.call("GET", "/ofrep/v1/events", headers: ["X-API-Key": "ops-secret-0123456789abcd"])),
            (404, try api.call("POST", "/ofrep/v1/evaluate/flags/nope", json: "{}", headers: ["X-API-Key": "web-secret-0123456789abcd"])),
            (405, try api.call("GET", "/ofrep/v1/evaluate/flags", headers: ["X-API-Key": "web-secret-0123456789abcd"])),
            (200, try api.call("POST", "/ofrep/v1/evaluate/flags/color", json: "{}", headers: ["X-API-Key": "web-secret-0123456789abcd"]))
        ]
        for (status, answer) in answers {
            #expect(answer.status == status)
            #expect(answer.headers.filter { $0.0.lowercased() == "access-control-allow-origin" }.map(\.1) == ["*"], "\(status)")
        }
        let limited = try APIHarness(rulesText: Self.rules, rateLimit: (rate: 1, burst: 1))
        defer { limited.stop() }
        _ = try limited.call("POST", "/ofrep/v1/evaluate/flags", json: "{}")
        let refused = try limited.call("POST", "/ofrep/v1/evaluate/flags", json: "{}")
        #expect(refused.status == 429)
        #expect(refused.header("Access-Control-Allow-Origin") == "*")
        #expect(refused.header("Access-Control-Expose-Headers")?.contains("Retry-After") == true)
    }

    @Test func nativeAndFlagdFlags_liveSideBySideInOneDirectory() throws {
        let directory = NSTemporaryDirectory() + "specd-mixed-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try #"{"flags": {"native": {"when": {"segment": "vip"}}}}"#.write(toFile: directory + "/native.json", atomically: true, encoding: .utf8)
        try #"{"flags": {"flagd": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off"}}, "$evaluators": {}}"#
            .write(toFile: directory + "/flagd.json", atomically: true, encoding: .utf8)
        let set = try RuleSetLoader.load(path: directory).get()
        #expect(Set(set.flagKeys) == ["native", "flagd"])
        #expect(
            set.evaluate("flagd", EvaluationInput(context: UserContext(), now: Instant(milliseconds: 0), request: RequestAttributes(userID: "u")))
                .reason == .staticValue)
    }
}
