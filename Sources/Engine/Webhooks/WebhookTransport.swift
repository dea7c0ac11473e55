/// How a delivery reaches its receiver. The engine knows no HTTP: the composition root supplies one over the HTTP
/// client. Called on the dispatcher's own threads only, never on a request path; it may block up to `timeout`.
public protocol WebhookTransport: Sendable {
    func post(url: String, headers: [(name: String, value: String)], body: [UInt8], timeout: Duration) -> WebhookAttempt
}

/// What one attempt came to.
public enum WebhookAttempt: Sendable, Equatable {
    /// A 2xx answer: delivered.
    case delivered(status: Int)
    /// Any other answer: retried.
    case refused(status: Int)
    /// No answer (refused connection, timeout, broken response): retried. `detail` is for operators.
    case unreachable(detail: String)

    public var isDelivered: Bool {
        if case .delivered = self { return true }
        return false
    }

    /// A short text for the operations list.
    public var summary: String {
        switch self {
        case .delivered(let status): "delivered (\(status))"
        case .refused(let status): "answered \(status)"
        case .unreachable(let detail): detail
        }
    }
}
