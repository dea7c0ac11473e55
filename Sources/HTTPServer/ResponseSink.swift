import HTTP

/// Where a handler delivers its response, from any thread, exactly once. Handlers that answer at once call it
/// inline; handlers that wait (a group commit) keep it and call it later; stream handlers open an `EventStream`.
public struct ResponseSink: Sendable {
    public let deliver: @Sendable (HTTPResponse) -> Void
    public let openStream: (@Sendable (HTTPHeaders) -> EventStream)?

    public init(deliver: @escaping @Sendable (HTTPResponse) -> Void, openStream: (@Sendable (HTTPHeaders) -> EventStream)? = nil) {
        self.deliver = deliver
        self.openStream = openStream
    }

    public func send(_ response: HTTPResponse) {
        deliver(response)
    }

    /// Starts a `200` streaming response with these headers (chunked on HTTP/1.1); `nil` where the sink cannot
    /// stream (tests' capturing sinks).
    public func stream(headers: HTTPHeaders) -> EventStream? {
        openStream?(headers)
    }

    /// A sink that hands the response to a closure; for tests and in-memory use.
    public static func capturing(_ body: @escaping @Sendable (HTTPResponse) -> Void) -> ResponseSink {
        ResponseSink(deliver: body)
    }
}
