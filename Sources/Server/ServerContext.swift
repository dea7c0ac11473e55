import HTTP
import Synchronization

/// What every connection shares: configuration, the responder, logging, ids, dates and the connection count.
final class ServerContext: Sendable {
    let configuration: ServerConfiguration
    let responder: Responder
    let logger: Logger
    let dates = DateCache()
    let requestIDs = RequestIDGenerator()
    let openConnections = Atomic<Int>(0)
    let acceptedTotal = Atomic<Int>(0)
    let rejectedTotal = Atomic<Int>(0)

    init(configuration: ServerConfiguration, responder: Responder, logger: Logger) {
        self.configuration = configuration
        self.responder = responder
        self.logger = logger
    }

    /// Claims a connection slot; false when the cap is reached.
    func tryOpenConnection() -> Bool {
        let count = openConnections.add(1, ordering: .relaxed).newValue
        if count > configuration.maxConnections {
            openConnections.subtract(1, ordering: .relaxed)
            rejectedTotal.add(1, ordering: .relaxed)
            return false
        }
        acceptedTotal.add(1, ordering: .relaxed)
        return true
    }

    func connectionClosed() {
        openConnections.subtract(1, ordering: .relaxed)
    }

    /// The access log line (level debug: at info it would cost a write per request).
    func accessLog(_ head: HTTPRequestHead, _ status: HTTPStatus, _ start: ContinuousClock.Instant, _ id: String, _ peer: String) {
        guard logger.enabled(.debug) else { return }
        let elapsed = ContinuousClock.now - start
        let micros = elapsed.components.seconds * 1_000_000 + elapsed.components.attoseconds / 1_000_000_000_000
        logger.debug("request", ["method": .string(head.method), "path": .string(String(head.path)),
                                 "status": .int(status.code), "durationUs": .int(Int(micros)),
                                 "requestId": .string(id), "peer": .string(peer)])
    }
}

/// A per-loop scratch buffer for `read(2)`; only the loop's thread touches it.
final class ReadBuffer: @unchecked Sendable {
    private var storage: UnsafeMutableBufferPointer<UInt8>

    init(size: Int = 64 * 1024) {
        storage = .allocate(capacity: size)
    }

    deinit { storage.deallocate() }

    func withBuffer<T>(_ body: (UnsafeMutableBufferPointer<UInt8>) -> T) -> T { body(storage) }
}
