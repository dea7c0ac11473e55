import Rules

/// One event on its way to one webhook: what the outbox keeps and the receiver gets.
public struct WebhookDelivery: Sendable, Equatable {
    /// The outbox's own number for it, increasing in enqueue order (`X-Specd-Delivery`: receivers may dedupe on it).
    public let id: UInt64
    /// The webhook's URL as configured: its identity across restarts.
    public let webhook: String
    public let user: String
    /// The SSE id streams carry for the same event (`X-Specd-Event-Id`).
    public let eventID: String
    /// `flag` or `trigger` (`X-Specd-Event`).
    public let eventType: String
    /// The JSON body, the same bytes as the SSE event's data.
    public let body: [UInt8]
    /// When it was enqueued: deliveries give up 24 hours after it.
    public let createdAt: Instant

    public init(id: UInt64, webhook: String, user: String, eventID: String, eventType: String, body: [UInt8], createdAt: Instant) {
        self.id = id
        self.webhook = webhook
        self.user = user
        self.eventID = eventID
        self.eventType = eventType
        self.body = body
        self.createdAt = createdAt
    }
}
