import HTTP

/// Where a handler delivers its response, from any thread, exactly once. Handlers that answer at once call it
/// inline; handlers that wait (a group commit) keep it and call it later; stream handlers open an `EventStream`.
///
/// A request's sink is made on every request, so the connection's own is a reference and a number (its
/// `ResponseReceiver` and which of its requests), and a route's metrics ride along as a reference and an instant
/// (`observed(by:since:)`): no closure context to allocate and free per request, where there were four.
public struct ResponseSink: Sendable {
    private enum Target: Sendable {
        case receiver(any ResponseReceiver, request: Int)
        case closures(deliver: @Sendable (HTTPResponse) -> Void, openStream: (@Sendable (HTTPHeaders) -> EventStream)?)
    }

    private let target: Target
    // Not an optional: a sink is copied several times per request (into each closure that answers later), and the
    // optional's copy went through a merged outlined copy that called the runtime's generic witnesses, some 100
    // instructions a copy. `observing` says whether `observer` is one a route set.
    private var observer = ResponseObserver.none
    private var observing = false
    private var started = MonotonicInstant(nanoseconds: 0)

    public init(deliver: @escaping @Sendable (HTTPResponse) -> Void, openStream: (@Sendable (HTTPHeaders) -> EventStream)? = nil) {
        target = .closures(deliver: deliver, openStream: openStream)
    }

    /// The answer to `receiver`'s request number `request`.
    public init(receiver: any ResponseReceiver, request: Int) {
        target = .receiver(receiver, request: request)
    }

    /// Whether `stream(headers:)` can open a stream here.
    public var canStream: Bool {
        switch target {
        case .receiver: true
        case .closures(_, let openStream): openStream != nil
        }
    }

    public func send(_ response: HTTPResponse) {
        if observing { observer.observe(status: response.status.code, seconds: MonotonicInstant.now.seconds(since: started)) }
        switch target {
        case .receiver(let receiver, let request): receiver.receive(response, request: request)
        case .closures(let deliver, _): deliver(response)
        }
    }

    /// Starts a `200` streaming response with these headers (chunked on HTTP/1.1); `nil` where the sink cannot
    /// stream (tests' capturing sinks). An observer counts the stream as a `200` when it opens.
    public func stream(headers: HTTPHeaders) -> EventStream? {
        guard canStream else { return nil }
        if observing { observer.observe(status: 200, seconds: 0) }
        switch target {
        case .receiver(let receiver, let request): return receiver.openStream(headers: headers, request: request)
        case .closures(_, let openStream): return openStream?(headers)
        }
    }

    /// This sink, telling `observer` the status of what it sends and the seconds since `started`. Replaces any
    /// observer it had.
    public func observed(by observer: ResponseObserver, since started: MonotonicInstant) -> ResponseSink {
        var sink = self
        sink.observe(by: observer, since: started)
        return sink
    }

    /// The same in place: a sink its holder owns is not copied (a copy retains its receiver).
    public mutating func observe(by observer: ResponseObserver, since started: MonotonicInstant) {
        self.observer = observer
        observing = true
        self.started = started
    }

    /// A sink that hands the response to a closure; for tests and in-memory use.
    public static func capturing(_ body: @escaping @Sendable (HTTPResponse) -> Void) -> ResponseSink {
        ResponseSink(deliver: body)
    }
}
