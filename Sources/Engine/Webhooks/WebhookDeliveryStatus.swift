import Rules

/// A delivery as operations show it: waiting, being retried, or given up.
public struct WebhookDeliveryStatus: Sendable, Equatable {
    public enum State: String, Sendable {
        /// Next in line (or behind an earlier delivery to the same webhook and user).
        case pending
        /// At least one attempt failed; `nextAttempt` says when the next one is.
        case retrying
        /// Given up after 24 hours of failures; never retried.
        case deadLettered = "dead_lettered"
    }

    public let delivery: WebhookDelivery
    public let state: State
    public let attempts: Int
    public let nextAttempt: Instant?
    public let lastError: String?
}
