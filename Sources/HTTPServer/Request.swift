import HTTP

/// A complete request as handlers see it.
public struct Request: Sendable {
    public let head: HTTPRequestHead
    public let body: [UInt8]
    /// The `X-Request-Id` this request is answered with, spelled when read.
    public let requestID: RequestID
    public var id: String { requestID.text }
    public let peer: String
    /// Decoded `{name}` segments of the matched route, in path order.
    public var parameters = RouteParameters()
    /// The query, decoded once: handlers ask for several names.
    public let queryItems: [(name: String, value: String)]
    /// When the request's head was read: its event loop's reading of the clock for that pass (`EventLoop.now`).
    /// What a route's metrics time its answer from.
    public let received: MonotonicInstant

    public init(head: HTTPRequestHead, body: [UInt8], id: String, peer: String = "") {
        self.init(head: head, body: body, requestID: RequestID(id), peer: peer)
    }

    public init(head: HTTPRequestHead, body: [UInt8], requestID: RequestID, peer: String = "", received: MonotonicInstant = .now) {
        self.head = head
        self.received = received
        self.body = body
        self.requestID = requestID
        self.peer = peer
        queryItems = head.query.map { PercentDecoding.queryItems($0) } ?? []
    }

    public var method: String { head.method }
    public var path: Substring { head.path }
    public var headers: HTTPHeaders { head.headers }
    /// A known field's first value, read in place (`HTTPRequestHead.subscript(field:)`).
    public func header(_ field: KnownField) -> String? { head[field] }

    /// Decoded query parameters (the first of each name).
    public func query(_ name: String) -> String? {
        // Most requests carry no query, and handlers ask for several names: the search's closure costs even then.
        guard !queryItems.isEmpty else { return nil }
        return queryItems.first { $0.name == name }?.value
    }

    public func parameter(_ name: String) -> String { parameters.value(named: name) ?? "" }
}
