import CLinux
import Foundation
import Rules
import Store

/// Webhooks (README, "Webhooks"): hears domain events from the stream hub with their SSE ids, records each
/// matching one durably in the outbox before the write that caused it is answered, and delivers them at least once
/// from its own threads, in order per (webhook, user), retrying with backoff for up to 24 hours.
///
/// Threads: `published` runs on whichever thread publishes (a write's completion, the clock) and only appends to
/// the outbox and the queue; each webhook has `workers` delivery threads of its own that do every network wait, so
/// a receiver that is down, slow or failing never holds a request, the clock, or another webhook's deliveries. The
/// queue and the outbox are guarded by `condition`.
public final class WebhookDispatcher: DomainEventObserver, @unchecked Sendable {
    public let webhooks: [Webhook]
    private let byURL: [String: Webhook]
    private let transport: any WebhookTransport
    private let clock: WallClock
    private let metrics: Metrics
    private let logger: Logger
    private let random: @Sendable () -> Double
    private let timeout: Duration
    private let workerCount: Int
    /// Whether each outbox record is fsynced before the write that caused it is answered (`--fsync always`).
    private let syncEachRecord: Bool
    /// Held across an outbox fsync or compaction, so the descriptor stays open during a sync. Never taken while
    /// `condition` or the hub's lock is held (order: `syncLock`, then `condition`).
    private let syncLock = NSLock()
    /// Guards everything below.
    private let condition = NSCondition()
    private var queue = WebhookQueue()
    private let outbox: WebhookOutbox
    private var nextID: UInt64
    private var running = false
    private var activeWorkers = 0
    /// Outbox records an fsync has covered, and when the last periodic one started.
    private var synced: UInt64 = 0
    private var lastPeriodicSync = ContinuousClock.now

    /// Opens (and recovers) the outbox under `directory`. Deliveries waiting for a webhook no longer configured are
    /// settled as orphaned and logged.
    public init(
        webhooks: [Webhook], directory: String, fileSystem: FileSystem, transport: any WebhookTransport, clock: WallClock, metrics: Metrics,
        logger: Logger, syncEachRecord: Bool, workers: Int = 4, timeout: Duration = .seconds(5),
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) throws(IOError) {
        self.webhooks = webhooks
        byURL = Dictionary(webhooks.map { ($0.url, $0) }, uniquingKeysWith: { first, _ in first })
        self.transport = transport
        self.clock = clock
        self.metrics = metrics
        self.logger = logger
        self.random = random
        self.timeout = timeout
        workerCount = max(1, workers)
        self.syncEachRecord = syncEachRecord
        outbox = WebhookOutbox(directory: directory, fileSystem: fileSystem)
        let now = clock.now()
        let recovered = try outbox.open(now: now)
        nextID = recovered.nextID
        for warning in recovered.warnings { logger.warn(warning) }
        var orphaned = 0
        for delivery in recovered.waiting {
            if byURL[delivery.webhook] == nil {
                orphaned += 1
                try outbox.append(.settled(id: delivery.id, .orphaned))
            } else {
                queue.add(delivery, now: now)
            }
        }
        synced = outbox.appended
        if orphaned > 0 { logger.warn("webhook deliveries dropped: their webhook is no longer configured", ["deliveries": .int(orphaned)]) }
        if !recovered.waiting.isEmpty { logger.info("webhook outbox recovered", ["waiting": .int(queue.pendingCount)]) }
    }

    // MARK: - Events in

    public func published(_ event: DomainEvent, id: String) {
        let matching = webhooks.filter { $0.wants(event) }
        guard !matching.isEmpty, let user = event.user else { return }
        // The body is the SSE event's data, with the seq the stream's data names (a firing's own write's).
        let seq = event.dataSeq(streamSeq: UInt64(id.split(separator: "-").first ?? "") ?? 0)
        var body: [UInt8] = []
        event.writeStreamData(seq: seq, into: &body)
        let now = clock.now()
        condition.withLock {
            for webhook in matching {
                guard (queue.pendingPerWebhook[webhook.url] ?? 0) < webhook.maxPending else {
                    metrics.increment("webhook_events_dropped_total")
                    continue
                }
                let delivery = WebhookDelivery(
                    id: nextID, webhook: webhook.url, user: user, eventID: id, eventType: event.streamType, body: body, createdAt: now)
                nextID += 1
                do {
                    try outbox.append(.enqueued(delivery))
                } catch {
                    // Still delivered from memory; only its survival across a crash is lost, and that is said.
                    metrics.increment("webhook_outbox_failures_total")
                    logger.error("webhook outbox write failed", ["error": .string("\(error)")])
                }
                queue.add(delivery, now: now)
                metrics.increment("webhook_events_enqueued_total")
            }
            condition.broadcast()
        }
    }

    /// Right after publishing, outside the hub's lock, before the write is answered: under `--fsync always` the
    /// records just written are fsynced, one fsync shared by every writer waiting at once (a group commit).
    public func didPublish() {
        if syncEachRecord { syncOutbox() }
    }

    /// Makes every outbox record written so far durable. A caller whose records another caller's fsync already
    /// covered returns without one of its own.
    func syncOutbox() {
        guard condition.withLock({ outbox.appended > synced }) else { return }
        syncLock.lock()
        defer { syncLock.unlock() }
        let (descriptor, target, needed) = condition.withLock { (outbox.fd, outbox.appended, outbox.appended > synced) }
        guard needed, descriptor >= 0 else { return }
        do {
            try outbox.syncDescriptor(descriptor)
            condition.withLock { synced = max(synced, target) }
        } catch {
            metrics.increment("webhook_outbox_failures_total")
            logger.error("webhook outbox fsync failed", ["error": .string("\(error)")])
        }
    }

    // MARK: - Delivery

    /// Starts the delivery threads.
    public func start() {
        condition.withLock { running = true }
        for (number, webhook) in webhooks.enumerated() {
            for index in 0..<workerCount {
                let thread = Thread { [self] in
                    // Short enough for the kernel's 15 bytes up to webhook 999 and worker 99.
                    specd_name_current_thread("specd-wh-\(number)-\(index)")
                    work(for: webhook.url)
                }
                thread.start()
            }
        }
    }

    /// Stops the threads after their current attempt and syncs the outbox. What waits stays in it for the next run.
    public func stop() {
        condition.withLock {
            running = false
            condition.broadcast()
            while activeWorkers > 0 { condition.wait() }
        }
        syncOutbox()
        syncLock.withLock { condition.withLock { outbox.close() } }
    }

    /// Runs every delivery due at `now` on the calling thread, as many rounds as become due (a lane's next is due
    /// once its head is delivered); returns how many attempts were made. Tests move a virtual clock with it.
    @discardableResult
    public func deliverDue(now: Instant) -> Int {
        var attempts = 0
        while let delivery = condition.withLock({ queue.takeDue(now: now) }) {
            attempt(delivery, now: { now })
            attempts += 1
        }
        return attempts
    }

    /// Waiting, retrying and given-up deliveries, oldest first (for operations).
    public var deliveries: [WebhookDeliveryStatus] { condition.withLock { queue.statuses } }
    public var pendingCount: Int { condition.withLock { queue.pendingCount } }
    /// The earliest instant a delivery is due (tests with a virtual clock move there).
    public var nextDue: Instant? { condition.withLock { queue.nextDue() } }

    private func work(for url: String) {
        condition.withLock { activeWorkers += 1 }
        defer {
            condition.withLock {
                activeWorkers -= 1
                condition.broadcast()
            }
        }
        while true {
            syncPeriodically()
            condition.lock()
            var delivery: WebhookDelivery?
            if running {
                delivery = queue.takeDue(now: clock.now(), webhook: url)
                if delivery == nil {
                    // With records not yet fsynced, wake within 100 ms to sync them (the `interval` policy's window).
                    var wait = outbox.appended > synced ? 0.1 : 1.0
                    if let due = queue.nextDue(webhook: url) {
                        wait = min(wait, max(0.001, Double(due.milliseconds - clock.now().milliseconds) / 1000))
                    }
                    _ = condition.wait(until: Date().addingTimeInterval(wait))
                }
            }
            let stopping = !running
            condition.unlock()
            if let delivery {
                attempt(delivery, now: { [clock] in clock.now() })
            } else if stopping {
                return
            }
        }
    }

    /// One attempt, then its settlement in the queue and the outbox.
    private func attempt(_ delivery: WebhookDelivery, now: () -> Instant) {
        guard let webhook = byURL[delivery.webhook] else { return }
        let headers: [(name: String, value: String)] = [
            ("Content-Type", "application/json"), ("X-Specd-Signature", webhook.signature(of: delivery.body)),
            ("X-Specd-Event-Id", delivery.eventID), ("X-Specd-Event", delivery.eventType), ("X-Specd-Delivery", String(delivery.id))
        ]
        let result = transport.post(url: webhook.url, headers: headers, body: delivery.body, timeout: timeout)
        let settledAt = now()
        condition.withLock {
            if result.isDelivered {
                metrics.increment("webhook_deliveries_total{outcome=\"delivered\"}")
                queue.settleHead(delivery, now: settledAt)
                record(.settled(id: delivery.id, .delivered))
            } else {
                metrics.increment("webhook_deliveries_total{outcome=\"failed\"}")
                if queue.headFailed(delivery, error: result.summary, now: settledAt, random: random()) {
                    metrics.increment("webhook_deliveries_total{outcome=\"dead_lettered\"}")
                    logger.error(
                        "webhook delivery given up after 24 hours",
                        ["webhook": .string(delivery.webhook), "eventId": .string(delivery.eventID), "error": .string(result.summary)])
                    record(.settled(id: delivery.id, .deadLettered))
                }
            }
            condition.broadcast()
        }
        if condition.withLock({ outbox.worthCompacting(waiting: queue.pendingCount) }) { compact() }
    }

    /// Rewrites the outbox to the waiting deliveries. The bulk is written and fsynced outside `condition`, so events
    /// keep being recorded meanwhile; only the few records appended during it are copied under the lock. Runs with
    /// no sync in flight (it replaces the descriptor).
    private func compact() {
        syncLock.withLock {
            let snapshot = condition.withLock { () -> (waiting: [WebhookDelivery], highestID: UInt64)? in
                guard outbox.worthCompacting(waiting: queue.pendingCount) else { return nil }
                outbox.beginCompaction()
                return (queue.allWaiting, nextID - 1)
            }
            guard let snapshot else { return }
            let compaction: WebhookOutbox.Compaction
            do {
                compaction = try outbox.writeCompacted(snapshot.waiting, highestID: snapshot.highestID)
            } catch {
                condition.withLock { outbox.abortCompaction(nil) }
                logger.error("webhook outbox compaction failed", ["error": .string("\(error)")])
                return
            }
            condition.lock()
            var failure: IOError?
            do throws(IOError) {
                try outbox.finishCompaction(compaction)
                // The new file was fsynced whole.
                synced = outbox.appended
            } catch {
                failure = error
                outbox.abortCompaction(nil)
            }
            condition.unlock()
            if failure == nil {
                do throws(IOError) { try outbox.syncDirectory() } catch { failure = error }
            }
            if let failure { logger.error("webhook outbox compaction failed", ["error": .string("\(failure)")]) }
        }
    }

    /// Under the `interval` policy, an fsync at most every 100 ms while records wait for one.
    private func syncPeriodically() {
        guard !syncEachRecord else { return }
        let due = condition.withLock { () -> Bool in
            guard outbox.appended > synced, ContinuousClock.now - lastPeriodicSync >= .milliseconds(100) else { return false }
            lastPeriodicSync = .now
            return true
        }
        if due { syncOutbox() }
    }

    private func record(_ record: OutboxRecord) {
        do {
            try outbox.append(record)
        } catch {
            metrics.increment("webhook_outbox_failures_total")
            logger.error("webhook outbox write failed", ["error": .string("\(error)")])
        }
    }
}
