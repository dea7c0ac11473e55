import Foundation
import Rules
import Testing

@testable import API
@testable import Engine

/// `GET /v1/admin/operations`, `DELETE /v1/admin/operations/{id}` and the status summary, on the real daemon.
@Suite(.serialized) struct OperationsRouteTests {
    static let rules = #"""
        {"flags": {"vip": {"when": {"flag": "is_vip"}}},
         "triggers": {"later": {"on": ["appStarted"], "when": {"not": {"flag": "opted_out"}}, "delay": "5s"}}}
        """#

    func operations(_ api: APIHarness) throws -> [JSONValue] {
        try api.call("GET", "/v1/admin/operations").body?["operations"]?.arrayValue ?? []
    }

    func pendingFireID(_ api: APIHarness) throws -> String? {
        try operations(api).first { $0["kind"] == "delayedFire" && $0["state"] == "idle" }?["id"]?.stringValue
    }

    @Test func operations_listRecoveryReloadSnapshotCompactionAndPendingFires() throws {
        let api = try APIHarness(rulesText: Self.rules)
        defer { api.stop() }
        _ = try api.call("POST", "/v1/users/u1/events/appStarted")
        #expect(try api.call("POST", "/v1/admin/reload").status == 200)
        try api.database.takeSnapshot()
        let listed = try operations(api)
        let kinds = Set(listed.compactMap { $0["kind"]?.stringValue })
        #expect(kinds.isSuperset(of: ["recovery", "reload", "snapshot", "compaction", "delayedFire"]))
        for operation in listed where operation["kind"] != "delayedFire" {
            #expect(operation["state"] == "loaded", "\(operation)")
            #expect(operation["finishedAt"]?.stringValue != nil)
        }
        let fire = listed.first { $0["kind"] == "delayedFire" }
        #expect(fire?["state"] == "idle")
        #expect(fire?["detail"] == ["user": "u1", "trigger": "later", "due": "2026-03-10T12:00:05Z"])
        let status = try api.call("GET", "/v1/admin/status").body?["operations"]
        #expect(status?["pendingFires"] == 1)
        #expect(status?["counts"]?["delayedFire"]?["idle"] == 1)
        #expect(status?["counts"]?["reload"]?["loaded"] == 1)
        #expect(status?["nextDueFire"]?["detail"]?["trigger"] == "later")
        // Due: it fires, and is listed as settled.
        api.clock.advance(5000)
        api.engine.runDue(now: api.clock.now())
        let settled = try operations(api).first { $0["kind"] == "delayedFire" }
        #expect(settled?["state"] == "loaded" && settled?["detail"]?["outcome"] == "fired")
        #expect(try api.call("GET", "/v1/admin/status").body?["operations"]?["nextDueFire"] == .null)
    }

    /// A failed reload is listed as failed, with why; the previous rules keep serving.
    @Test func operations_failedReload_isListedFailed() throws {
        let api = try APIHarness(rulesText: Self.rules)
        defer { api.stop() }
        try "{not json".write(toFile: api.rules.path!, atomically: true, encoding: .utf8)
        #expect(try api.call("POST", "/v1/admin/reload").status == 422)
        let reload = try operations(api).first { $0["kind"] == "reload" }
        #expect(reload?["state"] == "failed")
        #expect(reload?["error"]?.stringValue?.contains("previous rules keep serving") == true)
    }

    /// Cancelled, the fire never comes, and the cancellation is in the user's history; after a restart the
    /// user's state is the same, nothing is pending, and still nothing fires.
    @Test func cancelPendingFire_neverFires_evenAfterARestart() throws {
        let directory = NSTemporaryDirectory() + "specd-operations-\(UUID().uuidString)"
        let first = try APIHarness(directory: directory, rulesText: Self.rules)
        _ = try first.call("POST", "/v1/users/u1/events/appStarted")
        let id = try #require(try pendingFireID(first))
        let cancelled = try first.call("DELETE", "/v1/admin/operations/\(id)")
        #expect(cancelled.status == 200)
        #expect(cancelled.body?["operation"]?["id"]?.stringValue == id)
        #expect(cancelled.body?["operation"]?["detail"]?["outcome"] == "cancelled")
        let seq = try #require(cancelled.body?["seq"]?.numberValue?.int)
        #expect(try pendingFireID(first) == nil)
        first.clock.advance(60_000)
        first.engine.runDue(now: first.clock.now())
        let user = try first.call("GET", "/v1/users/u1").body
        #expect(user?["triggers"] == nil)
        let history = try first.call("GET", "/v1/users/u1/history?limit=1").body?["records"]?.arrayValue?.first
        #expect(history?["seq"]?.numberValue?.int == seq)
        #expect(history?["action"] == ["ops": [["op": "cancelPendingFire", "trigger": "later", "due": "2026-03-10T12:00:05Z"]]])
        first.stop()

        let second = try APIHarness(directory: directory, rulesText: Self.rules)
        defer { second.stop() }
        #expect(try second.call("GET", "/v1/users/u1").body == user)
        #expect(try pendingFireID(second) == nil)
        second.clock.advance(3_600_000)
        second.engine.runDue(now: second.clock.now())
        #expect(try second.call("GET", "/v1/users/u1").body?["triggers"] == nil)
        #expect(try second.call("GET", "/v1/users/u1/history?limit=1").body?["records"]?.arrayValue?.first?["seq"]?.numberValue?.int == seq)
    }

    @Test func cancel_unknownIsNotFound_settledOrOtherKindsConflict() throws {
        let api = try APIHarness(rulesText: Self.rules)
        defer { api.stop() }
        _ = try api.call("POST", "/v1/users/u1/events/appStarted")
        let id = try #require(try pendingFireID(api))
        _ = try api.call("POST", "/v1/admin/reload")
        let reload = try #require(try operations(api).first { $0["kind"] == "reload" }?["id"]?.stringValue)
        for unknown in ["fire-999", "fire-01", "fire-+1", "fire-", "x", "fire-99999999999999999999"] {
            let reply = try api.call("DELETE", "/v1/admin/operations/\(unknown)")
            #expect(reply.status == 404 && reply.errorCode == "operation_not_found", "\(unknown)")
        }
        let other = try api.call("DELETE", "/v1/admin/operations/\(reload)")
        #expect(other.status == 409 && other.errorCode == "operation_not_cancellable")
        #expect(try api.call("DELETE", "/v1/admin/operations/\(id)").status == 200)
        let again = try api.call("DELETE", "/v1/admin/operations/\(id)")
        #expect(again.status == 409 && again.errorCode == "operation_not_cancellable")
    }

    /// Both routes need the admin scope.
    @Test func operations_needTheAdminScope() throws {
        let api = try APIHarness(tokens: [Token(name: "reader", secret: "r-secret", scopes: [.evaluate])], rulesText: Self.rules)
        defer { api.stop() }
        #expect(try api.call("GET", "/v1/admin/operations", headers: ["Authorization": "Bearer r-secret"]).status == 403)
        #expect(try api.call("DELETE", "/v1/admin/operations/fire-1", headers: ["Authorization": "Bearer r-secret"]).status == 403)
        #expect(try api.call("GET", "/v1/admin/operations").status == 401)
    }
}
