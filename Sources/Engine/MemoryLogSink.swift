import Synchronization

/// Keeps lines in memory; tests read them back.
public final class MemoryLogSink: LogSink {
    private let stored = Mutex<[String]>([])

    public init() {}

    public func write(_ line: [UInt8]) {
        let text = String(decoding: line.dropLast(), as: UTF8.self)
        stored.withLock { $0.append(text) }
    }

    public var lines: [String] { stored.withLock { $0 } }
}
