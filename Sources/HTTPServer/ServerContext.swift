import HTTP
import Synchronization

/// What every connection shares: configuration, the responder, logging, ids, dates and the connection count.
final class ServerContext: Sendable {
    let configuration: ServerConfiguration
    /// Written once by `HTTPServer.start(serving:)` before any loop runs (starting a loop's thread, or adding the
    /// listener to a Dispatch loop, orders the write before every read); read on every request, so no lock.
    nonisolated(unsafe) var responder: Responder = NoResponder()
    let events: ServerEventSink
    let dates = DateCache()
    let requestIDs = RequestIDGenerator()
    let openConnections = Atomic<Int>(0)
    let acceptedTotal = Atomic<Int>(0)
    let rejectedTotal = Atomic<Int>(0)
    /// Times a listener paused accepting because descriptors ran out.
    let acceptPauses = Atomic<Int>(0)

    init(configuration: ServerConfiguration, events: ServerEventSink) {
        self.configuration = configuration
        self.events = events
        let limit = configuration.maxConnectionsPerClient
        clientOverLimit = ErrorResponse.response(
            .tooManyRequests, code: "too_many_client_connections",
            message: "this client address already has \(limit) open connections (limits.maxConnectionsPerClient)",
            field: "limits.maxConnectionsPerClient", retryable: true, headers: ["Retry-After": "1"])
    }

    /// Whether a new connection from `client` may take a slot.
    enum Admission: Equatable {
        case accepted
        /// The client already holds `maxConnectionsPerClient` connections: it may only ask the probe paths,
        /// anything else is 429.
        case clientOverLimit
        /// Every slot is taken: the connection may only ask the probe paths.
        case overCapacity
    }

    /// Open connections per client address. Only accepts and closes touch it, never a request.
    private let perClient = Mutex<[String: Int]>([:])
    /// Addresses whose connections `maxConnectionsPerClient` does not bound (`HTTPServer.setUncappedClients`).
    private let uncapped = Mutex<Set<String>>([])

    func setUncappedClients(_ addresses: Set<String>) {
        uncapped.withLock { $0 = addresses }
    }

    /// Claims a slot for a connection from `client` (counted per client, then globally).
    func admit(client: String) -> Admission {
        // Counted either way, so a close releases exactly what its accept claimed whatever the set is by then.
        let limit = uncapped.withLock { $0.contains(client) } ? Int.max : configuration.maxConnectionsPerClient
        let claimed = perClient.withLock { counts -> Bool in
            let current = counts[client, default: 0]
            guard current < limit else { return false }
            counts[client] = current + 1
            return true
        }
        guard claimed else {
            rejectedTotal.add(1, ordering: .relaxed)
            return .clientOverLimit
        }
        let count = openConnections.add(1, ordering: .relaxed).newValue
        if count > configuration.maxConnections {
            openConnections.subtract(1, ordering: .relaxed)
            release(client)
            rejectedTotal.add(1, ordering: .relaxed)
            return .overCapacity
        }
        acceptedTotal.add(1, ordering: .relaxed)
        return .accepted
    }

    func connectionClosed(client: String) {
        openConnections.subtract(1, ordering: .relaxed)
        release(client)
    }

    private func release(_ client: String) {
        perClient.withLock { counts in
            // Removed at zero, so the table holds only clients with open connections.
            if let current = counts[client], current > 1 { counts[client] = current - 1 } else { counts[client] = nil }
        }
    }

    /// The answer to a request other than a probe on a connection over its client's cap.
    let clientOverLimit: HTTPResponse

    /// The answer to a request other than a probe on a connection over the cap.
    static let overCapacity: HTTPResponse = ErrorResponse.response(
        .serviceUnavailable, code: "too_many_connections",
        message: "the server has reached its connection limit (limits.maxConnections)", retryable: true, headers: ["Retry-After": "1"])

    /// The access log line (level debug: at info it would cost a write per request).
    func accessLog(_ head: HTTPRequestHead, _ status: HTTPStatus, _ start: MonotonicInstant, _ id: RequestID, _ peer: String) {
        guard events.wantsRequests else { return }
        let elapsed = MonotonicInstant.now - start
        let micros = elapsed.microsecondsForLogs
        events.record(
            .request(
                method: head.method, path: String(head.path), status: status.code, durationMicros: Int(micros),
                requestID: id.text, peer: peer))
    }
}
