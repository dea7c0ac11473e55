#if canImport(Glibc)
import Glibc
import HTTP
import Synchronization
import Testing

@testable import HTTPServer

/// What test channels and hooks on a loop did, in order; any thread.
final class LoopLog: Sendable {
    private let entries = Mutex<[String]>([])
    func append(_ entry: String) { entries.withLock { $0.append(entry) } }
    /// A hook's entry, once per round that did something (a hook also runs on rounds that only timed out).
    func hookRan() { entries.withLock { if let last = $0.last, last != "hook" { $0.append("hook") } } }
    var all: [String] { entries.withLock { $0 } }
}

/// A pipe's read end on a loop: each readable drains the pipe, logs `read <name>` and then does `then`; a send at
/// the round's end logs `send <name>`. Loop thread only, as every channel.
final class PipeChannel: Channel, @unchecked Sendable {
    let fd: Int32
    let name: String
    let log: LoopLog
    private let then: (PipeChannel) -> Void
    /// Bytes a read takes: 1 leaves a channel written twice ready after its first read.
    private let readSize: Int

    init(fd: Int32, name: String, log: LoopLog, readSize: Int = 64, then: @escaping (PipeChannel) -> Void = { _ in }) {
        self.fd = fd
        self.name = name
        self.log = log
        self.readSize = readSize
        self.then = then
    }

    func readable() {
        var bytes = [UInt8](repeating: 0, count: readSize)
        _ = Glibc.read(fd, &bytes, bytes.count)
        log.append("read \(name)")
        then(self)
    }

    func writable() {}
    func tick(now: MonotonicInstant) {}
    func sendQueuedOutput() { log.append("send \(name)") }
}

/// A pipe whose two ends do not block: a test channel reads the first, the test writes the second.
func nonBlockingPipe() -> (read: Int32, write: Int32) {
    var fds: [Int32] = [0, 0]
    #expect(pipe(&fds) == 0)
    for fd in fds { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
    return (fds[0], fds[1])
}
#endif
