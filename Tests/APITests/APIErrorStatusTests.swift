import Foundation
import HTTP
import Rules
import Store
import StoreFixtures
import Synchronization
import Testing

@testable import API
@testable import Engine
@testable import HTTPServer
@testable import specd

/// The error statuses of docs/api.md ("Error codes") that need a particular situation: 409, 429, 503.
@Suite(.serialized) struct APIErrorStatusTests {
    @Test func rateLimit_answers429WithIntegerRetryAfter() throws {
        let api = try APIHarness(rateLimit: (rate: 1, burst: 3))
        defer { api.stop() }
        let statuses = try (0..<5).map { _ in try api.call("GET", "/v1/users/u1/flags/discount").status }
        #expect(statuses == [200, 200, 200, 429, 429])
        let limited = try api.call("GET", "/v1/users/u1/flags")
        #expect(limited.errorCode == "rate_limited")
        #expect(Int(limited.header("Retry-After") ?? "") ?? 0 >= 1)
        #expect(try api.call("GET", "/healthz").status == 200)
    }

    @Test func reloadWhileLoading_is409() throws {
        let api = try APIHarness()
        defer { api.stop() }
        #expect(api.rules.tryBeginLoading())
        let reply = try api.call("POST", "/v1/admin/reload")
        #expect(reply.status == 409)
        #expect(reply.errorCode == "reload_in_progress")
    }

    @Test func storageFailure_is503AndEveryLaterWriteToo() throws {
        // Opening the log takes a few calls; the first write's write(2) fails.
        let probe = FaultyFileSystem()
        _ = try Database(options: .init(directory: NSTemporaryDirectory() + "specd-probe-\(UUID().uuidString)", fsync: .always), fileSystem: probe)
        let api = try APIHarness(fileSystem: FaultyFileSystem(failAt: probe.calls + 1, fault: .error(EIO)))
        defer { api.stop() }
        let first = try api.call("POST", "/v1/users/u1/events/appStarted")
        #expect(first.status == 503)
        #expect(first.errorCode == "storage_failed")
        #expect(first.header("Retry-After") != nil)
        #expect(try api.call("PATCH", "/v1/users/u1/context", json: #"{"ops": [{"op": "toggleFlag", "flag": "f"}]}"#).status == 503)
        #expect(try api.call("GET", "/v1/admin/status").body?["store"]?["failed"] == true)
    }

    @Test func readyz_is503WhileDraining() throws {
        let api = try APIHarness()
        defer { api.stop() }
        let router = API(
            engine: api.engine, hub: api.hub, transport: FixedServerStatus(isDraining: true),
            authenticator: Authenticator(tokens: []), rateLimiter: nil
        ).makeRouter()
        let captured = Mutex<HTTPResponse?>(nil)
        router.respond(
            to: Request(head: HTTPRequestHead(method: "GET", target: "/readyz"), body: [], id: "t"),
            sink: .capturing { response in captured.withLock { $0 = response } })
        #expect(captured.withLock { $0 }?.status.code == 503)
    }
}
