import Synchronization

/// Collects stream writes bound for one event loop and hands them over in one task, so fanning one event out to
/// thousands of streams costs one wake-up per loop rather than one per stream.
final class StreamBatcher: Sendable {
    private let loop: EventLoop
    private let pending = Mutex<[(connection: HTTPConnection, bytes: [UInt8])]>([])

    init(loop: EventLoop) {
        self.loop = loop
    }

    func enqueue(_ connection: HTTPConnection, _ bytes: [UInt8]) {
        // Already on the loop with nothing queued ahead: write now, before whatever else this turn of the loop does
        // (such as answering the write that caused the event).
        if loop.inEventLoop, pending.withLock({ $0.isEmpty }) {
            connection.streamWrite(bytes)
            return
        }
        let first = pending.withLock { queue in
            queue.append((connection, bytes))
            return queue.count == 1
        }
        guard first else { return }
        loop.execute { [self] in drain() }
    }

    private func drain() {
        let batch = pending.withLock { queue -> [(connection: HTTPConnection, bytes: [UInt8])] in
            defer { queue.removeAll(keepingCapacity: true) }
            return queue
        }
        for item in batch { item.connection.streamWrite(item.bytes) }
    }
}
