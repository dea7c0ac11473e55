import Engine
import Foundation
import Rules
import Store
import Synchronization
import Testing

/// The dispatcher alone, with a scripted receiver, an in-memory file system and a clock moved by hand: every retry
/// schedule is walked in virtual time, so 24 hours take no time.
@Suite struct WebhookDispatcherTests {
    static let secret = "0123456789abcdef-secret"
    static let url = "http://127.0.0.1:9/hook"

    struct Fixture {
        let dispatcher: WebhookDispatcher
        let transport: ScriptedTransport
        let clock: WebhookClock
        let fileSystem: MemoryFileSystem
        let metrics: Metrics
    }

    func fixture(
        webhooks: [Webhook] = [Webhook(url: url, events: [.trigger, .flag], secret: secret)], transport: ScriptedTransport = ScriptedTransport(),
        fileSystem: MemoryFileSystem = MemoryFileSystem(), clock: WebhookClock = WebhookClock(), random: Double = 0.5, syncEachRecord: Bool = false
    ) throws -> Fixture {
        let metrics = Metrics()
        let dispatcher = try WebhookDispatcher(
            webhooks: webhooks, directory: "/data/webhooks", fileSystem: fileSystem, transport: transport, clock: clock, metrics: metrics,
            logger: Logger(level: .error, sink: MemoryLogSink()), syncEachRecord: syncEachRecord, random: { random })
        return Fixture(dispatcher: dispatcher, transport: transport, clock: clock, fileSystem: fileSystem, metrics: metrics)
    }

    /// Moves the clock to each next due instant and delivers, until nothing waits or `limit` rounds passed.
    func drain(_ fixture: Fixture, limit: Int = 200) {
        for _ in 0..<limit {
            fixture.dispatcher.deliverDue(now: fixture.clock.now())
            guard let due = fixture.dispatcher.nextDue else { return }
            fixture.clock.set(due)
        }
    }

    @Test func matchingEvent_isPostedSignedWithItsIdAndTheStreamData() throws {
        let fixture = try fixture()
        fixture.dispatcher.published(WebhookEvents.trigger("u1", seq: 7), id: "7")
        fixture.dispatcher.deliverDue(now: fixture.clock.now())
        let received = try #require(fixture.transport.delivered.withLock { $0.first })
        #expect(received.url == Self.url)
        #expect(received.header("X-Specd-Event-Id") == "7")
        #expect(received.header("X-Specd-Event") == "trigger")
        #expect(received.header("Content-Type") == "application/json")
        let expected = "sha256=" + HMAC.hex(HMAC.sha256(key: Array(Self.secret.utf8), message: received.body))
        #expect(received.header("X-Specd-Signature") == expected)
        #expect(received.bodyText == #"{"user":"u1","trigger":"welcome","at":"2026-03-10T12:00:00Z","seq":7}"#)
        #expect(fixture.dispatcher.pendingCount == 0)
        #expect(fixture.metrics.counter("webhook_deliveries_total{outcome=\"delivered\"}") == 1)
    }

    /// Writes on two loops may publish out of their order, so a firing's stream id can carry a later seq than the
    /// write that fired it. Its stream data names the firing's own write (`StreamHub.eventBytes`); the webhook body,
    /// which is that data, named the id's seq instead, so the two said different writes for one event.
    @Test func firingPublishedUnderALaterStreamSeq_bodyNamesItsOwnWrite_asTheStreamDoes() throws {
        let fixture = try fixture()
        let firing = WebhookEvents.trigger("u1", seq: 7)
        fixture.dispatcher.published(firing, id: "9")
        fixture.dispatcher.deliverDue(now: fixture.clock.now())
        let received = try #require(fixture.transport.delivered.withLock { $0.first })
        #expect(received.header("X-Specd-Event-Id") == "9")
        #expect(received.bodyText == #"{"user":"u1","trigger":"welcome","at":"2026-03-10T12:00:00Z","seq":7}"#)
        var streamData: [UInt8] = []
        firing.writeStreamData(seq: firing.dataSeq(streamSeq: 9), into: &streamData)
        #expect(received.body == streamData)
    }

    @Test func events_filteredByKindNameAndAppVersion() throws {
        let webhooks = [
            Webhook(url: "http://a/flags", events: [.flag], flags: ["discount"], secret: Self.secret),
            Webhook(url: "http://b/triggers", events: [.trigger], triggers: ["welcome"], secret: Self.secret)
        ]
        let fixture = try fixture(webhooks: webhooks)
        fixture.dispatcher.published(WebhookEvents.flag("u1", "discount", 50), id: "1")
        fixture.dispatcher.published(WebhookEvents.flag("u1", "discount", 50, appVersion: "2.0"), id: "1-1")
        fixture.dispatcher.published(WebhookEvents.flag("u1", "other", 1), id: "1-2")
        fixture.dispatcher.published(WebhookEvents.trigger("u1", "welcome", seq: 2), id: "2")
        fixture.dispatcher.published(WebhookEvents.trigger("u1", "nag", seq: 3), id: "3")
        fixture.dispatcher.published(.contextChanged(user: "u1", context: nil, seq: 4), id: "4")
        drain(fixture)
        let delivered = fixture.transport.delivered.withLock { $0.map { "\($0.url) \($0.header("X-Specd-Event-Id") ?? "")" } }
        #expect(delivered.sorted() == ["http://a/flags 1", "http://b/triggers 2"])
    }

    /// Fails with 500, then no connection, then a timeout, then recovers: every event arrives, in order per user,
    /// and the retries follow the schedule (1 s, 2 s, 4 s at the jitter's midpoint).
    @Test func failingReceiver_getsEveryEventInOrderPerUser_onceItRecovers() throws {
        let transport = ScriptedTransport([
            .refused(status: 500), .unreachable(detail: "connectFailed(errno: 111)"), .unreachable(detail: "timedOut(receive)"),
            .delivered(status: 200)
        ])
        let fixture = try fixture(transport: transport)
        for seq in 1...5 { fixture.dispatcher.published(WebhookEvents.trigger(seq % 2 == 0 ? "even" : "odd", seq: UInt64(seq)), id: "\(seq)") }
        drain(fixture)
        let delivered = transport.delivered.withLock { $0 }
        #expect(delivered.count == 5)
        for user in ["odd", "even"] {
            let ids = delivered.filter { $0.bodyText.contains(#""user":"\#(user)""#) }.compactMap {
                $0.header("X-Specd-Event-Id").flatMap { Int($0) }
            }
            #expect(ids == ids.sorted(), "\(user) out of order: \(ids)")
        }
        #expect(fixture.dispatcher.pendingCount == 0)
        #expect(fixture.metrics.counter("webhook_deliveries_total{outcome=\"failed\"}") == 3)
    }

    @Test func retries_waitOneTwoFourSeconds_atTheJittersMidpoint() throws {
        let transport = ScriptedTransport([.refused(status: 500), .unreachable(detail: "a"), .unreachable(detail: "b"), .delivered(status: 204)])
        let fixture = try fixture(transport: transport)
        let start = fixture.clock.now()
        fixture.dispatcher.published(WebhookEvents.trigger("u1", seq: 1), id: "1")
        drain(fixture)
        #expect(transport.delivered.withLock { $0.count } == 1)
        #expect(fixture.clock.now() - start == 1000 + 2000 + 4000)
    }

    @Test func laneHeadRetrying_holdsItsUsersLaterEvents_butNotOtherUsers() throws {
        let transport = ScriptedTransport([.refused(status: 503), .delivered(status: 200)])
        let fixture = try fixture(transport: transport)
        fixture.dispatcher.published(WebhookEvents.trigger("slow", seq: 1), id: "1")
        fixture.dispatcher.published(WebhookEvents.trigger("slow", seq: 2), id: "2")
        fixture.dispatcher.published(WebhookEvents.trigger("other", seq: 3), id: "3")
        fixture.dispatcher.deliverDue(now: fixture.clock.now())
        #expect(transport.delivered.withLock { $0.map { $0.header("X-Specd-Event-Id") } } == ["3"])
        let statuses = fixture.dispatcher.deliveries
        #expect(statuses.map(\.delivery.eventID) == ["1", "2"])
        #expect(statuses.map(\.state) == [.retrying, .pending])
        #expect(statuses[0].lastError == "answered 503")
        drain(fixture)
        #expect(transport.delivered.withLock { $0.map { $0.header("X-Specd-Event-Id") } } == ["3", "1", "2"])
    }

    @Test func receiverDownForADay_isDeadLetteredVisiblyAndTheLaneMovesOn() throws {
        let transport = ScriptedTransport([.unreachable(detail: "connectFailed(errno: 111)")])
        let fixture = try fixture(transport: transport)
        fixture.dispatcher.published(WebhookEvents.trigger("u1", seq: 1), id: "1")
        drain(fixture, limit: 1000)
        let statuses = fixture.dispatcher.deliveries
        #expect(statuses.map(\.state) == [.deadLettered])
        #expect(statuses.first?.lastError == "connectFailed(errno: 111)")
        #expect(fixture.dispatcher.pendingCount == 0)
        #expect(fixture.metrics.counter("webhook_deliveries_total{outcome=\"dead_lettered\"}") == 1)
        // 1 + 2 + ... + 512 s, then every 10 minutes until 24 hours passed: about 150 attempts, never one more.
        let attempts = transport.attempts.withLock { $0.count }
        #expect(attempts > 100 && attempts < 200)
    }

    @Test func killedWithPendingDeliveries_deliversThemAfterRestart_inOrder() throws {
        let fileSystem = MemoryFileSystem()
        let down = ScriptedTransport([.unreachable(detail: "down")])
        let first = try fixture(transport: down, fileSystem: fileSystem)
        for seq in 1...3 { first.dispatcher.published(WebhookEvents.trigger("u1", seq: UInt64(seq)), id: "\(seq)") }
        first.dispatcher.deliverDue(now: first.clock.now())
        // Dropped without `stop`: a kill -9. Only what reached the file system survives.
        let up = ScriptedTransport()
        let second = try fixture(transport: up, fileSystem: fileSystem)
        #expect(second.dispatcher.pendingCount == 3)
        drain(second)
        #expect(up.delivered.withLock { $0.map { $0.header("X-Specd-Event-Id") } } == ["1", "2", "3"])
        let third = try fixture(transport: ScriptedTransport(), fileSystem: fileSystem)
        #expect(third.dispatcher.pendingCount == 0)
        // Ids keep increasing across restarts, even with nothing left waiting.
        third.dispatcher.published(WebhookEvents.trigger("u1", seq: 4), id: "4")
        #expect(third.dispatcher.deliveries.first.map(\.delivery.id) == 4)
    }

    @Test func webhookRemovedFromConfig_itsWaitingDeliveriesAreSettledNotRetried() throws {
        let fileSystem = MemoryFileSystem()
        let first = try fixture(transport: ScriptedTransport([.unreachable(detail: "down")]), fileSystem: fileSystem)
        first.dispatcher.published(WebhookEvents.trigger("u1", seq: 1), id: "1")
        let other = [Webhook(url: "http://elsewhere/hook", events: [.trigger], secret: Self.secret)]
        let second = try fixture(webhooks: other, fileSystem: fileSystem)
        #expect(second.dispatcher.pendingCount == 0)
        let third = try fixture(fileSystem: fileSystem)
        #expect(third.dispatcher.pendingCount == 0)
    }

    @Test func outboxFull_dropsNewEventsAndCountsThem() throws {
        let webhooks = [Webhook(url: Self.url, events: [.trigger], secret: Self.secret, maxPending: 2)]
        let fixture = try fixture(webhooks: webhooks, transport: ScriptedTransport([.unreachable(detail: "down")]))
        for seq in 1...5 { fixture.dispatcher.published(WebhookEvents.trigger("u1", seq: UInt64(seq)), id: "\(seq)") }
        #expect(fixture.dispatcher.pendingCount == 2)
        #expect(fixture.metrics.counter("webhook_events_dropped_total") == 3)
    }

    @Test func outboxWriteFailing_stillDeliversFromMemory_andCountsTheFailure() throws {
        let fileSystem = MemoryFileSystem()
        let fixture = try fixture(fileSystem: fileSystem)
        fileSystem.setFailWrites(true)
        fixture.dispatcher.published(WebhookEvents.trigger("u1", seq: 1), id: "1")
        fixture.dispatcher.deliverDue(now: fixture.clock.now())
        #expect(fixture.transport.delivered.withLock { $0.count } == 1)
        #expect(fixture.metrics.counter("webhook_outbox_failures_total") >= 1)
    }

    @Test func tornTailAfterCrash_isDropped_andEverythingBeforeItKept() throws {
        let fileSystem = MemoryFileSystem()
        let first = try fixture(transport: ScriptedTransport([.unreachable(detail: "down")]), fileSystem: fileSystem)
        for seq in 1...2 { first.dispatcher.published(WebhookEvents.trigger("u1", seq: UInt64(seq)), id: "\(seq)") }
        let path = "/data/webhooks/outbox"
        let bytes = try #require(fileSystem.contents(path))
        fileSystem.replace(
            path,
            with: bytes
                + OutboxRecord.enqueued(
                    WebhookDelivery(
                        id: 9, webhook: Self.url, user: "u1", eventID: "9", eventType: "trigger", body: [1], createdAt: Instant(milliseconds: 0))
                ).encoded().prefix(20))
        let second = try fixture(fileSystem: fileSystem)
        #expect(second.dispatcher.pendingCount == 2)
        #expect(!fileSystem.paths.contains { $0.contains("damaged") })
    }

    @Test func damagedRecordInTheMiddle_keepsTheGoodPrefix_andTheFileAside() throws {
        let fileSystem = MemoryFileSystem()
        let first = try fixture(transport: ScriptedTransport([.unreachable(detail: "down")]), fileSystem: fileSystem)
        for seq in 1...3 { first.dispatcher.published(WebhookEvents.trigger("u1", seq: UInt64(seq)), id: "\(seq)") }
        let path = "/data/webhooks/outbox"
        var bytes = try #require(fileSystem.contents(path))
        let firstLength = OutboxRecord.decodeAll(bytes).records.prefix(1).map { $0.encoded().count }.reduce(0, +)
        bytes[firstLength + 20] ^= 0xFF
        fileSystem.replace(path, with: bytes)
        let second = try fixture(fileSystem: fileSystem)
        #expect(second.dispatcher.pendingCount == 1)
        #expect(fileSystem.paths.contains { $0.hasPrefix(path + ".damaged-") })
    }
}

/// The dispatcher's own threads, on the real clock.
@Suite struct WebhookDispatcherThreadTests {
    /// Holds every post to one URL until released; answers the others at once.
    final class HoldingTransport: WebhookTransport, @unchecked Sendable {
        let held: String
        let release = DispatchSemaphore(value: 0)
        let delivered = Mutex<[String]>([])
        init(holding url: String) { held = url }

        func post(url: String, headers: [(name: String, value: String)], body: [UInt8], timeout: Duration) -> WebhookAttempt {
            if url == held {
                release.wait()
                release.signal()
            }
            delivered.withLock { $0.append(url) }
            return .delivered(status: 200)
        }
    }

    @Test func stalledWebhook_doesNotDelayAnotherWebhooksDeliveries() throws {
        let stalled = "http://stalled/hook"
        let healthy = "http://healthy/hook"
        let transport = HoldingTransport(holding: stalled)
        let dispatcher = try WebhookDispatcher(
            webhooks: [
                Webhook(url: stalled, events: [.trigger], secret: WebhookDispatcherTests.secret),
                Webhook(url: healthy, events: [.trigger], secret: WebhookDispatcherTests.secret)
            ], directory: "/w", fileSystem: MemoryFileSystem(), transport: transport, clock: SystemClock(), metrics: Metrics(),
            logger: Logger(level: .error, sink: MemoryLogSink()), syncEachRecord: false)
        dispatcher.start()
        defer {
            transport.release.signal()
            dispatcher.stop()
        }
        for seq in 1...10 { dispatcher.published(WebhookEvents.trigger("user-\(seq)", seq: UInt64(seq)), id: "\(seq)") }
        let deadline = Date().addingTimeInterval(5)
        while transport.delivered.withLock({ $0.count }) < 10, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        // Every stalled delivery still waits; every healthy one arrived.
        #expect(transport.delivered.withLock { $0 } == Array(repeating: healthy, count: 10))
    }
}

extension WebhookDispatcherTests {
    /// Under `--fsync always` the record is fsynced before the write is answered: a power cut right after keeps it.
    @Test(arguments: [true, false])
    func powerCutAfterAnswer_keepsTheDelivery_onlyWhenEachRecordIsSynced(syncEachRecord: Bool) throws {
        let fileSystem = MemoryFileSystem()
        let first = try fixture(transport: ScriptedTransport([.unreachable(detail: "down")]), fileSystem: fileSystem, syncEachRecord: syncEachRecord)
        first.dispatcher.published(WebhookEvents.trigger("u1", seq: 1), id: "1")
        first.dispatcher.didPublish()
        fileSystem.powerCut()
        let second = try fixture(fileSystem: fileSystem)
        #expect(second.dispatcher.pendingCount == (syncEachRecord ? 1 : 0))
    }

    @Test func concurrentWriters_everyRecordIsDurableOnceItsWriteIsAnswered() throws {
        let fileSystem = MemoryFileSystem()
        let fixture = try fixture(transport: ScriptedTransport([.unreachable(detail: "down")]), fileSystem: fileSystem, syncEachRecord: true)
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for index in 0..<50 {
                fixture.dispatcher.published(WebhookEvents.trigger("user-\(thread)", seq: UInt64(index)), id: "\(thread)-\(index)")
                fixture.dispatcher.didPublish()
            }
        }
        fileSystem.powerCut()
        let restarted = try self.fixture(fileSystem: fileSystem)
        #expect(restarted.dispatcher.pendingCount == 400)
    }

    /// Under the `interval` policy the delivery threads fsync what was written within about 100 ms.
    @Test func intervalPolicy_recordsAreFsyncedByTheDeliveryThreadsSoon() throws {
        let fileSystem = MemoryFileSystem()
        let fixture = try fixture(transport: ScriptedTransport([.unreachable(detail: "down")]), fileSystem: fileSystem)
        fixture.dispatcher.start()
        fixture.dispatcher.published(WebhookEvents.trigger("u1", seq: 1), id: "1")
        let deadline = Date().addingTimeInterval(3)
        var durable = 0
        while durable == 0, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.02)
            durable = OutboxRecord.decodeAll(fileSystem.durableContents("/data/webhooks/outbox") ?? []).records.count
        }
        fixture.dispatcher.stop()
        #expect(durable > 0)
    }

    /// Delivered records are compacted away; an event recorded while the new file is being written is kept.
    @Test func compaction_dropsSettledRecords_andKeepsWhatArrivedDuringIt() throws {
        let fileSystem = MemoryFileSystem()
        let fixture = try fixture(fileSystem: fileSystem)
        let path = "/data/webhooks/outbox"
        for seq in 1...1100 { fixture.dispatcher.published(WebhookEvents.trigger("user-\(seq % 7)", seq: UInt64(seq)), id: "\(seq)") }
        let dispatcher = fixture.dispatcher
        let once = Mutex(false)
        fileSystem.afterFsync.withLock {
            // The first fsync of the new file is the bulk, written outside the dispatcher's lock.
            $0 = { fsynced in
                guard fsynced.hasSuffix(".tmp"), !once.withLock({ $0 }) else { return }
                once.withLock { $0 = true }
                dispatcher.published(WebhookEvents.trigger("late", seq: 9999), id: "9999")
            }
        }
        // The late event, recorded mid-compaction, is refused, so it still waits when the round ends.
        fixture.transport.refusing.withLock { $0 = { String(decoding: $0, as: UTF8.self).contains(#""user":"late""#) } }
        fixture.dispatcher.deliverDue(now: fixture.clock.now())
        fileSystem.afterFsync.withLock { $0 = nil }
        let records = OutboxRecord.decodeAll(fileSystem.contents(path) ?? []).records
        #expect(records.count < 1100)
        let restarted = try self.fixture(transport: ScriptedTransport([.unreachable(detail: "down")]), fileSystem: fileSystem)
        #expect(once.withLock { $0 })
        #expect(fixture.dispatcher.deliveries.map(\.delivery.user) == ["late"])
        #expect(restarted.dispatcher.deliveries.map(\.delivery.user) == fixture.dispatcher.deliveries.map(\.delivery.user))
        #expect(restarted.dispatcher.pendingCount == fixture.dispatcher.pendingCount)
    }
}
