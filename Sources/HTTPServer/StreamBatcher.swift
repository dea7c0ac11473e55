import Synchronization

/// Collects stream writes bound for one event loop and hands them over in one task, so fanning one event out to
/// thousands of streams costs one wake-up per loop rather than one per stream.
final class StreamBatcher: Sendable {
    /// An event for a stream whose framing may not be known yet, or bytes ready for its socket (the rest of a
    /// direct write the socket did not take whole).
    enum Payload {
        case frame(EventFrame)
        case wire([UInt8])
    }

    struct Item {
        let connection: HTTPConnection
        let payload: Payload
    }

    private let loop: EventLoop
    private let pending = Mutex<[Item]>([])

    init(loop: EventLoop) {
        self.loop = loop
    }

    func enqueue(_ connection: HTTPConnection, _ payload: Payload) {
        let first = pending.withLock { queue in
            queue.append(Item(connection: connection, payload: payload))
            return queue.count == 1
        }
        guard first else { return }
        loop.execute { [self] in drain() }
    }

    private func drain() {
        let batch = pending.withLock { queue -> [Item] in
            defer { queue.removeAll(keepingCapacity: true) }
            return queue
        }
        for item in batch { item.connection.streamWriteHandedOff(item.payload) }
    }
}
