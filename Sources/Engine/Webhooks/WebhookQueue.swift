import Rules

/// The delivery schedule, as a pure value: one lane per (webhook, user) holding its deliveries in order, at most one
/// in flight per lane, so a receiver sees a user's events in the order they happened. A lane's head is retried with
/// backoff; the deliveries behind it wait. Owned by the dispatcher under its lock.
struct WebhookQueue {
    struct LaneKey: Hashable {
        let webhook: String
        let user: ByteKey
    }

    struct Lane {
        var waiting: [WebhookDelivery] = []
        var head = 0
        var failures = 0
        var nextAttempt: Instant
        var inFlight = false
        var lastError: String?

        var isEmpty: Bool { head == waiting.count }
    }

    /// Given-up deliveries kept for operators to see (the newest).
    static let deadLetterMemory = 1000

    private(set) var lanes: [LaneKey: Lane] = [:]
    private(set) var deadLetters: [WebhookDeliveryStatus] = []
    private(set) var pendingPerWebhook: [String: Int] = [:]
    /// Per webhook, the lanes whose head waits for its attempt (with stale entries, see `DueHeap`).
    private var ready: [String: DueHeap<LaneKey>] = [:]

    var pendingCount: Int { pendingPerWebhook.values.reduce(0, +) }

    mutating func add(_ delivery: WebhookDelivery, now: Instant) {
        let key = LaneKey(webhook: delivery.webhook, user: ByteKey(delivery.user))
        let isNewHead = lanes[key]?.isEmpty ?? true
        lanes[key, default: Lane(nextAttempt: now)].waiting.append(delivery)
        pendingPerWebhook[delivery.webhook, default: 0] += 1
        if isNewHead { schedule(key) }
    }

    /// The due lane head with the earliest attempt time (the oldest first among equals), for one webhook or any,
    /// marked in flight; nil when nothing is due.
    mutating func takeDue(now: Instant, webhook: String? = nil) -> WebhookDelivery? {
        let urls = webhook.map { [$0] } ?? Array(ready.keys)
        var best: (url: String, entry: DueHeap<LaneKey>.Entry)?
        for url in urls {
            guard let entry = validFirst(url), entry.at <= now else { continue }
            if best == nil || (entry.at, entry.order) < (best!.entry.at, best!.entry.order) { best = (url, entry) }
        }
        guard let (url, entry) = best else { return nil }
        ready[url]?.popFirst()
        lanes[entry.key]!.inFlight = true
        let lane = lanes[entry.key]!
        return lane.waiting[lane.head]
    }

    /// The earliest instant a lane head is due and not in flight (for one webhook or any).
    mutating func nextDue(webhook: String? = nil) -> Instant? {
        let urls = webhook.map { [$0] } ?? Array(ready.keys)
        return urls.compactMap { validFirst($0)?.at }.min()
    }

    /// The heap's first entry once stale ones (a lane settled, in flight or rescheduled since) are dropped.
    private mutating func validFirst(_ url: String) -> DueHeap<LaneKey>.Entry? {
        while let entry = ready[url]?.first {
            if let lane = lanes[entry.key], !lane.inFlight, !lane.isEmpty, lane.nextAttempt == entry.at, lane.waiting[lane.head].id == entry.order {
                return entry
            }
            ready[url]?.popFirst()
        }
        return nil
    }

    /// Puts a lane's head on its webhook's heap at its attempt time.
    private mutating func schedule(_ key: LaneKey) {
        guard let lane = lanes[key], !lane.inFlight, !lane.isEmpty else { return }
        ready[key.webhook, default: DueHeap()].push(DueHeap.Entry(at: lane.nextAttempt, order: lane.waiting[lane.head].id, key: key))
    }

    /// The head was delivered (or is settled otherwise): the next in its lane is due at once.
    mutating func settleHead(_ delivery: WebhookDelivery, now: Instant) {
        let key = LaneKey(webhook: delivery.webhook, user: ByteKey(delivery.user))
        guard var lane = lanes[key], !lane.isEmpty, lane.waiting[lane.head].id == delivery.id else { return }
        lane.head += 1
        lane.failures = 0
        lane.inFlight = false
        lane.lastError = nil
        lane.nextAttempt = now
        pendingPerWebhook[delivery.webhook, default: 1] -= 1
        if pendingPerWebhook[delivery.webhook] == 0 { pendingPerWebhook[delivery.webhook] = nil }
        if lane.isEmpty {
            lanes[key] = nil
        } else {
            // Drop what was delivered once it is most of the array, not one shift per delivery.
            if lane.head >= 64, lane.head * 2 >= lane.waiting.count {
                lane.waiting.removeFirst(lane.head)
                lane.head = 0
            }
            lanes[key] = lane
            schedule(key)
        }
    }

    /// The head failed: retried after the backoff, or given up (true) once 24 hours passed since its event.
    mutating func headFailed(_ delivery: WebhookDelivery, error: String, now: Instant, random: Double) -> Bool {
        let key = LaneKey(webhook: delivery.webhook, user: ByteKey(delivery.user))
        guard var lane = lanes[key], !lane.isEmpty, lane.waiting[lane.head].id == delivery.id else { return false }
        lane.failures += 1
        if now - delivery.createdAt >= WebhookBackoff.giveUpAfter {
            deadLetters.append(
                WebhookDeliveryStatus(delivery: delivery, state: .deadLettered, attempts: lane.failures, nextAttempt: nil, lastError: error))
            if deadLetters.count > Self.deadLetterMemory { deadLetters.removeFirst(deadLetters.count - Self.deadLetterMemory) }
            lanes[key] = lane
            settleHead(delivery, now: now)
            return true
        }
        lane.inFlight = false
        lane.lastError = error
        lane.nextAttempt = now + WebhookBackoff.delay(afterFailures: lane.failures, random: random)
        lanes[key] = lane
        schedule(key)
        return false
    }

    /// Every waiting delivery in enqueue order (for compaction).
    var allWaiting: [WebhookDelivery] {
        lanes.values.flatMap { $0.waiting[$0.head...] }.sorted { $0.id < $1.id }
    }

    /// Waiting deliveries, then the given-up ones, for operations.
    var statuses: [WebhookDeliveryStatus] {
        var list: [WebhookDeliveryStatus] = []
        for lane in lanes.values {
            for index in lane.head..<lane.waiting.count {
                let isHead = index == lane.head
                list.append(
                    WebhookDeliveryStatus(
                        delivery: lane.waiting[index], state: isHead && lane.failures > 0 ? .retrying : .pending,
                        attempts: isHead ? lane.failures : 0, nextAttempt: isHead ? lane.nextAttempt : nil,
                        lastError: isHead ? lane.lastError : nil))
            }
        }
        return list.sorted { $0.delivery.id < $1.delivery.id } + deadLetters
    }
}
