import Foundation
import HTTP
import NetworkFixtures
import Rules
import Store
import Testing

@testable import API
@testable import Engine
@testable import HTTPServer
@testable import specd

/// Webhooks through the whole daemon: real writes, the real HTTP client, a receiver on loopback.
@Suite(.serialized) struct WebhookDeliveryTests {
    static let secret = "a-webhook-secret-of-some-length"
    static let rules = #"""
        {"flags": {"pro": {"cases": [{"when": {"donations": {"event": "ping", "gte": 2}}, "value": true}], "fallback": false}},
         "triggers": {"hello": {"on": ["ping"], "when": {"donations": {"event": "ping", "gte": 1}}}}}
        """#

    struct Harness {
        let daemon: Daemon
        let clock: ManualClock
        let client = HTTPClient()

        var webhooks: WebhookDispatcher { daemon.webhooks! }
        var endpoint: HTTPClient.Endpoint { HTTPClient.Endpoint(host: "127.0.0.1", port: daemon.server.port) }

        func donate(_ user: String) throws -> HTTPClient.Response {
            try client.send(method: "POST", path: "/v1/users/\(user)/events/ping", to: endpoint, timeout: .seconds(5))
        }

        func stop() {
            daemon.stop()
            daemon.database.log.close()
        }
    }

    static let clockRules = #"""
        {"flags": {"active": {"cases": [{"when": {"lastDonation": {"event": "ping", "within": "1h"}}, "value": true}], "fallback": false}}}
        """#

    func harness(
        start: Instant = ISO8601.parse("2026-03-10T12:00:00Z")!, receiverPort: Int, realClock: Bool, rules: String = Self.rules,
        directory: String? = nil
    ) throws -> Harness {
        let directory = directory ?? NSTemporaryDirectory() + "specd-webhooks-\(UUID().uuidString)"
        let rulesPath = directory + ".rules.json"
        try rules.write(toFile: rulesPath, atomically: true, encoding: .utf8)
        var options = DaemonOptions()
        options.dataDirectory = directory
        options.rulesPath = rulesPath
        options.logLevel = .error
        options.server = ServerConfiguration(host: "127.0.0.1", port: 0, loopCount: 1)
        options.webhooks = [Webhook(url: "http://127.0.0.1:\(receiverPort)/hook", events: [.trigger, .flag], secret: Self.secret)]
        let clock = ManualClock(start)
        let daemon = try Daemon.assemble(options: options, logSink: MemoryLogSink(), clock: realClock ? SystemClock() : clock)
        try daemon.start(clockThread: realClock)
        return Harness(daemon: daemon, clock: clock)
    }

    /// Moves the manual clock to the next retry and runs what is due (on this thread: the client blocks it).
    func retry(_ harness: Harness) {
        if let due = harness.webhooks.nextDue, due > harness.clock.now() { harness.clock.advance(due - harness.clock.now()) }
        harness.webhooks.deliverDue(now: harness.clock.now())
    }

    @Test func receiverFailingStallingDownThenBack_getsEveryEventInOrder_signed() throws {
        let receiver = try WebhookReceiver(mode: .answer(500))
        defer { receiver.down() }
        let harness = try harness(receiverPort: receiver.port, realClock: false)
        defer { harness.stop() }
        #expect(try harness.donate("u1").status == 200)
        #expect(try harness.donate("u1").status == 200)
        // Two trigger fires and the flag turning true, in one lane (webhook, u1); a write's flag changes are
        // published before its fires, so the second write's flag comes first.
        #expect(harness.webhooks.pendingCount == 3)
        harness.webhooks.deliverDue(now: harness.clock.now())
        #expect(harness.webhooks.deliveries.first?.lastError == "answered 500")
        receiver.mode = .stall
        let stalled = ContinuousClock.now
        retry(harness)
        #expect(ContinuousClock.now - stalled >= .seconds(5))
        #expect(harness.webhooks.deliveries.first?.lastError == "no answer within the timeout (receive)")
        receiver.down()
        retry(harness)
        #expect(harness.webhooks.deliveries.first?.lastError == "cannot connect: Connection refused")
        receiver.mode = .answer(200)
        try receiver.up()
        retry(harness)
        #expect(harness.webhooks.pendingCount == 0)
        let delivered = receiver.delivered
        #expect(delivered.map { $0.header("X-Specd-Event") } == ["trigger", "flag", "trigger"])
        let ids = delivered.compactMap { $0.header("X-Specd-Event-Id").flatMap(EventID.init(text:)) }
        #expect(ids.count == 3 && ids == ids.sorted())
        for request in delivered {
            let signature = "sha256=" + HMAC.hex(HMAC.sha256(key: Array(Self.secret.utf8), message: request.body))
            #expect(request.header("X-Specd-Signature") == signature)
            #expect(request.header("Content-Type") == "application/json")
        }
        let flag = try JSONParser().parse(delivered[1].body)
        #expect(flag["key"]?.stringValue == "pro" && flag["value"] == .bool(true) && flag["user"]?.stringValue == "u1")
    }

    /// A receiver answering 500: its deliveries show in `/v1/admin/operations` (waiting, then retrying with the
    /// error) and in the pending gauge, and leave both once delivered.
    @Test func failingDeliveries_showInOperationsAndMetrics_untilDelivered() throws {
        let receiver = try WebhookReceiver(mode: .answer(500))
        defer { receiver.down() }
        let harness = try harness(receiverPort: receiver.port, realClock: false)
        defer { harness.stop() }
        #expect(try harness.donate("u1").status == 200)
        func deliveries() throws -> [JSONValue] {
            let response = try harness.client.send(method: "GET", path: "/v1/admin/operations", to: harness.endpoint, timeout: .seconds(5))
            #expect(response.status == 200)
            guard case .array(let operations)? = try JSONParser().parse(response.body)["operations"] else { return [] }
            return operations.filter { $0["kind"]?.stringValue == "webhookDelivery" }
        }
        let waiting = try deliveries()
        #expect(waiting.count == 1)
        #expect(waiting.first?["state"]?.stringValue == "idle")
        #expect(waiting.first?["detail"]?["user"]?.stringValue == "u1" && waiting.first?["detail"]?["event"]?.stringValue == "trigger")
        harness.webhooks.deliverDue(now: harness.clock.now())
        let retrying = try deliveries()
        #expect(retrying.first?["state"]?.stringValue == "loading")
        #expect(retrying.first?["error"]?.stringValue == "answered 500")
        #expect(retrying.first?["detail"]?["attempts"] == .int(1))
        let metrics = try harness.client.send(method: "GET", path: "/metrics", to: harness.endpoint, timeout: .seconds(5))
        let page = String(decoding: metrics.body, as: UTF8.self)
        #expect(page.contains("specd_webhook_deliveries_pending 1"))
        #expect(page.contains(#"specd_webhook_deliveries_total{outcome="failed"} 1"#))
        receiver.mode = .answer(200)
        retry(harness)
        #expect(try deliveries().isEmpty)
    }

    /// The receiver holds every connection without answering: writes are answered at their usual pace all the same.
    @Test func stalledReceiver_neverSlowsDownWrites() throws {
        let receiver = try WebhookReceiver(mode: .stall)
        let harness = try harness(receiverPort: receiver.port, realClock: true)
        defer {
            receiver.down()
            harness.stop()
        }
        var slowest = Duration.zero
        let started = ContinuousClock.now
        for index in 0..<20 {
            let before = ContinuousClock.now
            #expect(try harness.donate("user-\(index % 5)").status == 200)
            slowest = max(slowest, ContinuousClock.now - before)
        }
        // A write waiting on a delivery would take the client's 5 s timeout; these are far below it.
        #expect(slowest < .seconds(1))
        #expect(ContinuousClock.now - started < .seconds(3))
        #expect(harness.webhooks.pendingCount >= 20)
    }

    /// A flag that turns off an hour after the last ping, for a user with no stream open: the clock finds the change
    /// and the webhook hears it, with the same id a stream would have had.
    @Test func flagChangedByTheClock_isDelivered_withoutAnyStreamOpen() throws {
        let receiver = try WebhookReceiver()
        defer { receiver.down() }
        let harness = try harness(receiverPort: receiver.port, realClock: false, rules: Self.clockRules)
        defer { harness.stop() }
        #expect(try harness.donate("quiet").status == 200)
        harness.clock.advance(60 * 60 * 1000 + 1)
        harness.daemon.engine.runDue(now: harness.clock.now())
        harness.webhooks.deliverDue(now: harness.clock.now())
        let values = try receiver.delivered.map { try JSONParser().parse($0.body)["value"] }
        #expect(values == [.bool(true), .bool(false)])
        #expect(receiver.delivered.last?.header("X-Specd-Event-Id") == harness.daemon.hub.lastID.description)
    }

    /// After a restart, a user not written since is watched all the same: the clock's change reaches the webhook.
    @Test func flagChangedByTheClock_afterARestart_isDeliveredForAUserNotWrittenSince() throws {
        let receiver = try WebhookReceiver()
        defer { receiver.down() }
        let directory = NSTemporaryDirectory() + "specd-webhooks-\(UUID().uuidString)"
        let first = try harness(receiverPort: receiver.port, realClock: false, rules: Self.clockRules, directory: directory)
        #expect(try first.donate("quiet").status == 200)
        first.webhooks.deliverDue(now: first.clock.now())
        first.stop()
        let restarted = ISO8601.parse("2026-03-10T12:30:00Z")!
        let second = try harness(start: restarted, receiverPort: receiver.port, realClock: false, rules: Self.clockRules, directory: directory)
        defer { second.stop() }
        second.daemon.watchStoredUsersForWebhooks()
        second.clock.advance(30 * 60 * 1000 + 1)
        second.daemon.engine.runDue(now: second.clock.now())
        second.webhooks.deliverDue(now: second.clock.now())
        let values = try receiver.delivered.map { try JSONParser().parse($0.body)["value"] }
        #expect(values == [.bool(true), .bool(false)])
    }
}
