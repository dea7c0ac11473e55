/// Where log lines go: standard error in the daemon, memory in tests.
public protocol LogSink: Sendable {
    func write(_ line: [UInt8])
}
