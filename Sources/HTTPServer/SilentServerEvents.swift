/// Reports nothing; for tests and tools.
public struct SilentServerEvents: ServerEventSink {
    public init() {}
    public var wantsRequests: Bool { false }
    public func record(_ event: ServerEvent) {}
}
