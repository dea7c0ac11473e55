/// Where the transport reports its events. Called on loop threads: implementations must be cheap and thread-safe.
public protocol ServerEventSink: Sendable {
    /// Whether `.request` events are wanted at all (they cost a line per request).
    var wantsRequests: Bool { get }
    func record(_ event: ServerEvent)
}
