/// One configured webhook (README, "Webhooks"): where to POST, which events, and the key that signs them.
public struct Webhook: Sendable, Equatable {
    public enum EventKind: String, Sendable, CaseIterable {
        case trigger
        case flag
    }

    /// `http://host[:port]/path`, as configured; also its identity in the outbox across restarts.
    public var url: String
    public var events: Set<EventKind>
    /// Only these triggers (`nil`: all).
    public var triggers: Set<String>?
    /// Only these flags (`nil`: all).
    public var flags: Set<String>?
    public var secret: String
    /// Deliveries this webhook may have waiting; events past it are dropped and counted (`webhook_events_dropped_total`).
    public var maxPending: Int

    public static let defaultMaxPending = 100_000

    public init(
        url: String, events: Set<EventKind>, triggers: Set<String>? = nil, flags: Set<String>? = nil, secret: String,
        maxPending: Int = Webhook.defaultMaxPending
    ) {
        self.url = url
        self.events = events
        self.triggers = triggers
        self.flags = flags
        self.secret = secret
        self.maxPending = maxPending
    }

    /// Whether this webhook takes the event. Flag changes count as evaluated without an app version (the one
    /// evaluation every write makes whoever wrote it), so one change is one delivery.
    public func wants(_ event: DomainEvent) -> Bool {
        switch event {
        case .triggerFired(_, let trigger, _, _):
            return events.contains(.trigger) && (triggers?.contains(trigger) ?? true)
        case .flagChanged(_, let key, _, _, _, let appVersion):
            return appVersion == nil && events.contains(.flag) && (flags?.contains(key) ?? true)
        case .contextChanged, .rulesReloaded:
            return false
        }
    }

    /// `sha256=<hex HMAC-SHA256 of the body under the secret>`.
    public func signature(of body: [UInt8]) -> String {
        "sha256=" + HMAC.hex(HMAC.sha256(key: Array(secret.utf8), message: body))
    }
}
