#if canImport(Glibc)
import Foundation
import Glibc
import HTTP
import Synchronization
import Testing

@testable import HTTPServer

/// A round whose hook has a commit pending takes what became ready meanwhile before the hook runs; otherwise the
/// hook runs first and the newcomer waits for the next round.
@Suite struct RoundGatherTests {
    final class Log: Sendable {
        private let entries = Mutex<[String]>([])
        func append(_ entry: String) { entries.withLock { $0.append(entry) } }
        /// The hook's entry, once per round that read something.
        func hookRan() { entries.withLock { if let last = $0.last, last != "hook" { $0.append("hook") } } }
        var all: [String] { entries.withLock { $0 } }
    }

    /// Reads its pipe; the first one also makes the second one's pipe readable, in the same round.
    final class PipeChannel: Channel, @unchecked Sendable {
        let fd: Int32
        let name: String
        let log: Log
        let wakes: Int32?

        init(fd: Int32, name: String, log: Log, wakes: Int32? = nil) {
            self.fd = fd
            self.name = name
            self.log = log
            self.wakes = wakes
        }

        func readable() {
            var bytes = [UInt8](repeating: 0, count: 64)
            _ = Glibc.read(fd, &bytes, bytes.count)
            log.append("read \(name)")
            if let wakes {
                var byte: UInt8 = 1
                _ = Glibc.write(wakes, &byte, 1)
            }
        }

        func writable() {}
        func tick(now: MonotonicInstant) {}
    }

    private func pipePair() -> (read: Int32, write: Int32) {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        for fd in fds { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        return (fds[0], fds[1])
    }

    private func firstThree(pending: Bool) -> [String] {
        let loop = EpollEventLoop()
        let log = Log()
        let first = pipePair()
        let second = pipePair()
        defer { [first.write, second.write].forEach { _ = Glibc.close($0) } }
        let added = loop.addIterationHook({ log.hookRan() }, gatherWhile: { pending })
        #expect(added)
        loop.add(PipeChannel(fd: first.read, name: "a", log: log, wakes: second.write))
        loop.add(PipeChannel(fd: second.read, name: "b", log: log))
        loop.start()
        var byte: UInt8 = 1
        _ = Glibc.write(first.write, &byte, 1)
        for _ in 0..<500 where log.all.count < 3 { Thread.sleep(forTimeInterval: 0.01) }
        loop.stop()
        _ = Glibc.close(first.read)
        _ = Glibc.close(second.read)
        return Array(log.all.prefix(3))
    }

    @Test func aHookWithACommitPending_hasTheRoundGatherWhatBecameReady() {
        #expect(firstThree(pending: true) == ["read a", "read b", "hook"])
    }

    @Test func aHookWithNothingPending_runsBeforeTheNewcomerIsRead() {
        #expect(firstThree(pending: false) == ["read a", "hook", "read b"])
    }
}
#endif
