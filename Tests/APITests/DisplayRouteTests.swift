import Foundation
import Rules
import Testing

@testable import API
@testable import Engine

/// `POST /v1/users/{u}/flags/{key}/display` on the real daemon: answers, refusals, OFREP, the clock's push, restart.
@Suite(.serialized) struct DisplayRouteTests {
    static let rules = #"""
        {"groups": {"tour": {"frequency": "daily", "order": "firstAvailable"}},
         "flags": {
           "tip-a": {"when": {"always": true}, "display": {"maxCount": 2, "group": "tour", "invalidateOn": ["actionPerformed"]}},
           "tip-b": {"when": {"always": true}, "display": {"group": "tour"}},
           "seen-a": {"when": {"display": {"flag": "tip-a", "shownCount": {"gte": 1}}}},
           "plain": {"when": {"always": true}}}}
        """#

    static let path = "/v1/users/u1/flags/tip-a/display"

    @Test func shown_answersTheNewEvaluation_theStateAndTheChanges() throws {
        let api = try APIHarness(rulesText: Self.rules)
        defer { api.stop() }
        let reply = try api.call("POST", Self.path, json: #"{"event": "shown"}"#)
        #expect(reply.status == 200)
        #expect(reply.body?["seq"] == 1)
        #expect(reply.body?["flag"]?["key"] == "tip-a")
        #expect(reply.body?["flag"]?["value"] == true)
        #expect(reply.body?["display"]?["shownCount"] == 1)
        #expect(reply.body?["display"]?["lastShown"] == "2026-03-10T12:00:00.000Z" || reply.body?["display"]?["lastShown"] == "2026-03-10T12:00:00Z")
        let changed = reply.body?["changed"]?.arrayValue?.compactMap { $0["key"]?.stringValue } ?? []
        #expect(changed.sorted() == ["seen-a", "tip-b"])
        let context = try api.call("GET", "/v1/users/u1")
        #expect(context.body?["display"]?["tip-a"]?["shownCount"] == 1)
    }

    @Test func actionPerformed_invalidates_andOFREPSaysDisabledWithTheReason() throws {
        let api = try APIHarness(rulesText: Self.rules)
        defer { api.stop() }
        let reply = try api.call("POST", Self.path, json: #"{"event": "actionPerformed", "at": "2026-03-10T11:00:00Z"}"#)
        #expect(reply.body?["flag"]?["value"] == false)
        #expect(reply.body?["flag"]?["reason"] == "INVALIDATED")
        #expect(reply.body?["display"]?["invalidated"]?["reason"] == "actionPerformed")
        let ofrep = try api.call("POST", "/ofrep/v1/evaluate/flags/tip-a", json: #"{"context": {"targetingKey": "u1"}}"#)
        #expect(ofrep.body?["reason"] == "DISABLED")
        #expect(ofrep.body?["metadata"]?["invalidated"] == "actionPerformed")
        #expect(ofrep.body?["value"] == false)
        let explained = try api.call("GET", "/v1/users/u1/flags/tip-a?explain=1")
        #expect(explained.body?["explain"]?["display"]?["result"] == false)
    }

    @Test(arguments: [
        ("/v1/users/u1/flags/nope/display", #"{"event": "shown"}"#, 404, "flag_not_found", "key"),
        ("/v1/users/u1/flags/plain/display", #"{"event": "shown"}"#, 422, "not_a_display_flag", "key"),
        (path, #"{"event": "clicked"}"#, 400, "invalid_field", "event"),
        (path, #"{}"#, 400, "invalid_field", "event"),
        (path, #"{"event": 1}"#, 400, "invalid_field", "event"),
        (path, #"{"event": "shown", "at": "yesterday"}"#, 400, "invalid_field", "at"),
        (path, #"{"event": "shown", "at": 12}"#, 400, "invalid_field", "at"),
        (path, #"{"event": "shown", "extra": true}"#, 400, "invalid_field", "extra"),
        (path, #"[]"#, 400, "invalid_field", "body")
    ])
    func badRequests_areRefusedNamingTheField(path: String, body: String, status: Int, code: String, field: String) throws {
        let api = try APIHarness(rulesText: Self.rules)
        defer { api.stop() }
        let reply = try api.call("POST", path, json: body)
        #expect(reply.status == status)
        #expect(reply.errorCode == code)
        #expect(reply.errorField == field)
        #expect(try api.call("GET", "/v1/users/u1").status == 404)
    }

    /// `at` at the ends of what ISO 8601 can say is stored and evaluated without a trap.
    @Test(arguments: ["0001-01-01T00:00:00Z", "9999-12-31T23:59:59Z", "1970-01-01T00:00:00Z"])
    func extremeAt_isAccepted(at: String) throws {
        let api = try APIHarness(rulesText: Self.rules)
        defer { api.stop() }
        let reply = try api.call("POST", Self.path, json: #"{"event": "shown", "at": "\#(at)"}"#)
        #expect(reply.status == 200)
        #expect(try api.call("GET", "/v1/users/u1/flags").status == 200)
    }

    /// tip-a shown: tip-b waits a day, then is pushed over SSE at exactly the window's end, with no write.
    @Test func frequencyWindowEnding_isPushedAtTheInstant() throws {
        let api = try APIHarness(rulesText: Self.rules)
        defer { api.stop() }
        _ = try api.call("POST", Self.path, json: #"{"event": "shown"}"#)
        #expect(try api.call("GET", "/v1/users/u1/flags/tip-b").body?["value"] == false)
        let client = try api.stream("/v1/users/u1/stream?flags=tip-b")
        let deadline = ContinuousClock.now + .seconds(2)
        while api.engine.nextDue == nil, ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.005) }
        #expect(api.engine.nextDue == ISO8601.parse("2026-03-11T12:00:00Z"))
        api.clock.advance(86_400_000 - 1)
        api.engine.runDue(now: api.clock.now())
        #expect(try api.call("GET", "/v1/users/u1/flags/tip-b").body?["value"] == false)
        api.clock.advance(1)
        api.engine.runDue(now: api.clock.now())
        let event = try client.readEvents(1)[0]
        #expect(event.contains(#""key":"tip-b","value":true,"previous":false"#))
    }

    /// Display state is logged: a restart replays it (and a snapshot keeps it).
    @Test(arguments: [false, true]) func displayState_survivesRestart(snapshot: Bool) throws {
        let directory = NSTemporaryDirectory() + "specd-display-\(UUID().uuidString)"
        let first = try APIHarness(directory: directory, rulesText: Self.rules, fsync: .always)
        _ = try first.call("POST", Self.path, json: #"{"event": "shown"}"#)
        _ = try first.call("POST", Self.path, json: #"{"event": "shown"}"#)
        if snapshot { try first.database.takeSnapshot() }
        let before = try first.call("GET", "/v1/users/u1").body?["display"]
        first.stop()
        let second = try APIHarness(directory: directory, rulesText: Self.rules)
        defer { second.stop() }
        let after = try second.call("GET", "/v1/users/u1")
        #expect(after.body?["display"] == before)
        #expect(after.body?["display"]?["tip-a"]?["invalidated"]?["reason"] == "displayCountExceeded")
        #expect(try second.call("GET", "/v1/users/u1/flags/tip-a").body?["reason"] == "INVALIDATED")
    }
}
