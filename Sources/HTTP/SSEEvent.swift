/// One server-sent event block (WHATWG HTML §9.2 "event stream interpretation").
public struct SSEEvent: Sendable, Equatable {
    public var id: String?
    public var event: String?
    public var data: String?
    /// Reconnection time in milliseconds.
    public var retry: Int?
    /// Comment lines, ignored by clients; used for heartbeats.
    public var comment: String?

    public init(id: String? = nil, event: String? = nil, data: String? = nil, retry: Int? = nil, comment: String? = nil) {
        self.id = id
        self.event = event
        self.data = data
        self.retry = retry
        self.comment = comment
    }

    public static func heartbeat(_ text: String = "keep-alive") -> SSEEvent { SSEEvent(comment: text) }
}
