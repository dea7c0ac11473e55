import HTTP

/// Where a handler delivers its response, from any thread, exactly once. Handlers that answer at once call it
/// inline; handlers that wait (a group commit, a stream) keep it and call it later.
public struct ResponseSink: Sendable {
    let deliver: @Sendable (HTTPResponse) -> Void

    init(deliver: @escaping @Sendable (HTTPResponse) -> Void) {
        self.deliver = deliver
    }

    public func send(_ response: HTTPResponse) {
        deliver(response)
    }

    /// A sink that hands the response to a closure; for tests and in-memory use.
    public static func capturing(_ body: @escaping @Sendable (HTTPResponse) -> Void) -> ResponseSink {
        ResponseSink(deliver: body)
    }
}

/// Anything that answers requests: the router, or a test double.
public protocol Responder: Sendable {
    func respond(to request: Request, sink: ResponseSink)
}
