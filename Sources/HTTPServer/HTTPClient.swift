import HTTP
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A small blocking HTTP/1.1 client over plain sockets, for webhook deliveries and for relaying requests to another
/// replica. Each call blocks its thread until the exchange ends or its deadline passes, so it must only be called on
/// a worker thread — NEVER on an event loop thread, where one slow peer would stall every connection of that loop.
///
/// Thread-safe: any number of threads may call it at once. Connections are kept per endpoint in a small idle pool
/// (bounded count and age); a pooled connection the server closed while idle is detected before use, and when it is
/// found out only by the exchange itself (nothing came back), the request is retried once on a fresh connection if
/// it is idempotent or none of it was sent.
public final class HTTPClient: Sendable {
    private struct Idle: Sendable {
        let fd: Int32
        let since: ContinuousClock.Instant
    }

    private let idle = Mutex<[Endpoint: [Idle]]>([:])
    /// Idle connections kept per endpoint; more are closed when they come back.
    public let maxIdlePerEndpoint: Int
    /// An idle connection older than this is closed instead of reused: servers close idle connections on their own
    /// schedule, and a reuse racing that close costs a retry.
    public let idleLifetime: Duration
    public let userAgent: String

    public init(maxIdlePerEndpoint: Int = 4, idleLifetime: Duration = .seconds(4), userAgent: String = "specd") {
        self.maxIdlePerEndpoint = maxIdlePerEndpoint
        self.idleLifetime = idleLifetime
        self.userAgent = userAgent
    }

    deinit { closeIdleConnections() }

    /// Sends one request and reads the whole response, all within `timeout` (connect, send and receive together).
    public func send(
        method: String, path: String, headers: [(name: String, value: String)] = [], body: [UInt8] = [], to endpoint: Endpoint,
        timeout: Duration, maxBodyBytes: Int = 8 * 1024 * 1024
    ) throws(HTTPClientError) -> Response {
        let deadline = ContinuousClock.now + timeout
        var response = Response(status: 0, headers: [], body: [])
        try perform(
            method: method, path: path, headers: headers, body: body, to: endpoint, deadline: deadline, bodyDeadline: deadline,
            idleTimeout: nil, limits: HTTPResponseLimits(maxBodyBytes: maxBodyBytes),
            onHead: { head in
                response.status = head.status
                response.headers = head.headers.fields.map { ($0.name, $0.value) }
                return true
            },
            onBody: { part in
                response.body += part
                return true
            })
        return response
    }

    /// Sends one request and hands the response over as it arrives: `onHead` once, then `onBody` for each part, until
    /// the body ends or a callback returns false (the connection is then closed). `connectTimeout` bounds everything
    /// up to the head; after it the body may take as long as it likes, each read bounded by `idleTimeout` when given
    /// (a relayed event stream sends a keep-alive comment every few seconds, so a silent peer is a dead one).
    public func stream(
        method: String, path: String, headers: [(name: String, value: String)] = [], body: [UInt8] = [], to endpoint: Endpoint,
        connectTimeout: Duration, idleTimeout: Duration? = nil, onHead: (HTTPResponseHead) -> Bool, onBody: ([UInt8]) -> Bool
    ) throws(HTTPClientError) {
        try perform(
            method: method, path: path, headers: headers, body: body, to: endpoint, deadline: .now + connectTimeout, bodyDeadline: nil,
            idleTimeout: idleTimeout, limits: HTTPResponseLimits(maxBodyBytes: Int.max), onHead: onHead, onBody: onBody)
    }

    /// Closes every pooled connection (shutdown, tests).
    public func closeIdleConnections() {
        let all = idle.withLock { pool in
            defer { pool.removeAll() }
            return pool.values.flatMap { $0 }
        }
        for connection in all { Glibc.close(connection.fd) }
    }

    /// Idle connections held for an endpoint now.
    public func idleConnectionCount(for endpoint: Endpoint) -> Int {
        idle.withLock { $0[endpoint]?.count ?? 0 }
    }

    // MARK: - The exchange

    private func perform(
        method: String, path: String, headers: [(name: String, value: String)], body: [UInt8], to endpoint: Endpoint,
        deadline: ContinuousClock.Instant, bodyDeadline: ContinuousClock.Instant?, idleTimeout: Duration?, limits: HTTPResponseLimits,
        onHead: (HTTPResponseHead) -> Bool, onBody: ([UInt8]) -> Bool
    ) throws(HTTPClientError) {
        let request = try RequestEncoder.encode(
            method: method, path: path, headers: headers, body: body, host: endpoint.hostHeader, userAgent: userAgent)
        var retried = false
        while true {
            let (fd, reused) = try checkout(endpoint, deadline: deadline)
            var sent = 0
            var received = false
            do {
                try ClientSocket.send(fd, request, deadline: deadline, sent: &sent)
                var parser = HTTPResponseParser(limits: limits)
                parser.expectResponse(toMethod: method)
                let reusable = try receive(
                    fd, parser: &parser, received: &received, headDeadline: deadline, bodyDeadline: bodyDeadline, idleTimeout: idleTimeout,
                    onHead: onHead, onBody: onBody)
                if reusable { checkin(fd, endpoint) } else { Glibc.close(fd) }
                return
            } catch {
                Glibc.close(fd)
                // A pooled connection the server had already closed fails before any answer: once, and only when a
                // repeat cannot do something twice, the request goes again on a new connection.
                let idempotent = ["GET", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE"].contains(method)
                guard reused, !retried, !received, Self.isStaleConnectionSign(error), idempotent || sent == 0 else { throw error }
                retried = true
            }
        }
    }

    /// Reads until the response ends or a callback declines; true when the connection may carry another request.
    private func receive(
        _ fd: Int32, parser: inout HTTPResponseParser, received: inout Bool, headDeadline: ContinuousClock.Instant,
        bodyDeadline: ContinuousClock.Instant?, idleTimeout: Duration?, onHead: (HTTPResponseHead) -> Bool, onBody: ([UInt8]) -> Bool
    ) throws(HTTPClientError) -> Bool {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
        defer { buffer.deallocate() }
        var keepAlive = false
        var headSeen = false
        while true {
            do throws(HTTPResponseError) {
                while let event = try parser.next() {
                    switch event {
                    case .head(let head):
                        headSeen = true
                        keepAlive = head.keepAlive
                        guard onHead(head) else { return false }
                    case .body(let part):
                        guard onBody(part) else { return false }
                    case .end:
                        // Bytes after the response were never asked for: such a connection is not reused.
                        return keepAlive && parser.bufferedByteCount == 0
                    }
                }
            } catch {
                throw .invalidResponse(error)
            }
            var readDeadline: ContinuousClock.Instant? = headSeen ? bodyDeadline : headDeadline
            if headSeen, let idleTimeout {
                let idleDeadline = ContinuousClock.now + idleTimeout
                readDeadline = readDeadline.map { min($0, idleDeadline) } ?? idleDeadline
            }
            let count = try ClientSocket.receive(fd, into: buffer, deadline: readDeadline)
            if count == 0 {
                parser.endInput()
            } else {
                received = true
                parser.feed(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            }
        }
    }

    private static func isStaleConnectionSign(_ error: HTTPClientError) -> Bool {
        switch error {
        case .invalidResponse(.endOfInput(during: .beforeResponse)): return true
        case .sendFailed(let code), .receiveFailed(let code): return code == ECONNRESET || code == EPIPE
        default: return false
        }
    }

    // MARK: - The pool

    private func checkout(_ endpoint: Endpoint, deadline: ContinuousClock.Instant) throws(HTTPClientError) -> (fd: Int32, reused: Bool) {
        let now = ContinuousClock.now
        var discarded: [Int32] = []
        defer { for fd in discarded { Glibc.close(fd) } }
        while let candidate = idle.withLock({ $0[endpoint]?.popLast() }) {
            if now - candidate.since < idleLifetime, ClientSocket.isQuiet(candidate.fd) { return (candidate.fd, true) }
            discarded.append(candidate.fd)
        }
        return (try ClientSocket.connect(to: endpoint, deadline: deadline), false)
    }

    private func checkin(_ fd: Int32, _ endpoint: Endpoint) {
        let kept = idle.withLock { pool in
            guard pool[endpoint, default: []].count < maxIdlePerEndpoint else { return false }
            pool[endpoint, default: []].append(Idle(fd: fd, since: .now))
            return true
        }
        if !kept { Glibc.close(fd) }
    }
}
