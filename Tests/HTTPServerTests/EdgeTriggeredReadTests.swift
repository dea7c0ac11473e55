#if canImport(Glibc)
import Foundation
import Glibc
import HTTP
import NetworkFixtures
import Synchronization
import Testing

@testable import HTTPServer

/// The epoll loop watches connections edge-triggered: a descriptor is reported once each time it becomes ready,
/// so a connection must never stop reading with bytes (or an end of file) left in its socket unless it asks the loop
/// to look again (`readAgain`) or pauses and resumes (`setInterest`), which looks again by itself.
@Suite(.serialized) struct EdgeTriggeredReadTests {
    /// One end of a socket pair on a loop: logs each readable call and its `peerShutDown`, then runs `then`.
    final class SocketChannel: Channel, @unchecked Sendable {
        let fd: Int32
        let edgeTriggered: Bool
        let calls = Mutex<[Bool]>([])
        private let then: (SocketChannel) -> Void

        init(fd: Int32, edgeTriggered: Bool, then: @escaping (SocketChannel) -> Void = { _ in }) {
            self.fd = fd
            self.edgeTriggered = edgeTriggered
            self.then = then
        }

        func readable() { readable(peerShutDown: false, urgent: false) }

        func readable(peerShutDown: Bool, urgent: Bool) {
            calls.withLock { $0.append(peerShutDown) }
            then(self)
        }

        func writable() {}
        func tick(now: MonotonicInstant) {}

        var count: Int { calls.withLock { $0.count } }
        var shutdownsSeen: [Bool] { calls.withLock { $0 } }

        /// Reads whatever waits, up to 64 KiB.
        func drain() {
            var bytes = [UInt8](repeating: 0, count: 65_536)
            _ = Glibc.read(fd, &bytes, bytes.count)
        }
    }

    /// A connected pair of non-blocking stream sockets: the channel's end and the test's.
    private func socketPair() -> (channel: Int32, peer: Int32) {
        var fds: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
        for fd in fds { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        return (fds[0], fds[1])
    }

    private func write(_ fd: Int32, _ count: Int = 1) {
        let bytes = [UInt8](repeating: 7, count: count)
        _ = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, count) }
    }

    /// Several of the loop's waits (its tick is 10 ms here), so a level-triggered report would repeat.
    private func letTheLoopWaitAFewTimes() { Thread.sleep(forTimeInterval: 0.12) }

    /// A loop (ticking every 10 ms, no idle polling) watching one end of a socket pair edge-triggered, started;
    /// `then` runs after each readable call. Close `peer` when done.
    private func watchedPair(
        then: @escaping (SocketChannel, EpollEventLoop) -> Void
    ) -> (loop: EpollEventLoop, channel: SocketChannel, peer: Int32) {
        let loop = EpollEventLoop(tickInterval: .milliseconds(10), idlePoll: IdlePoll(limit: .zero))
        let pair = socketPair()
        let channel = SocketChannel(fd: pair.channel, edgeTriggered: true) { then($0, loop) }
        loop.add(channel)
        loop.start()
        return (loop, channel, pair.peer)
    }

    /// Sends `hold` (which holds the connection's loop), then whatever `meanwhile` sends, and waits until all of it
    /// is in the server's socket: the held loop then finds it all waiting at once.
    private func whileTheLoopIsHeld(
        _ client: TestClient, hold: String = "GET /hold HTTP/1.1\r\nHost: t\r\n\r\n", _ meanwhile: () throws -> Void
    ) throws {
        try client.send(hold)
        Thread.sleep(forTimeInterval: 0.05)
        try meanwhile()
        waitUntil { client.unacknowledgedBytes == 0 }
        try #require(client.unacknowledgedBytes == 0)
    }

    private func waitUntil(_ condition: () -> Bool) {
        for _ in 0..<300 where !condition() { Thread.sleep(forTimeInterval: 0.01) }
    }

    // MARK: - The loop

    @Test func bytesLeftInTheSocket_areReportedOnceEdgeTriggered_andOnEveryWaitLevelTriggered() throws {
        let loop = EpollEventLoop(tickInterval: .milliseconds(10), idlePoll: IdlePoll(limit: .zero))
        let edge = socketPair()
        let level = socketPair()
        defer { [edge.peer, level.peer].forEach { _ = Glibc.close($0) } }
        // Neither reads: the byte stays.
        let edgeChannel = SocketChannel(fd: edge.channel, edgeTriggered: true)
        let levelChannel = SocketChannel(fd: level.channel, edgeTriggered: false)
        loop.add(edgeChannel)
        loop.add(levelChannel)
        loop.start()
        write(edge.peer)
        write(level.peer)
        letTheLoopWaitAFewTimes()
        loop.stop()
        #expect(edgeChannel.count == 1)
        #expect(levelChannel.count > 3)
    }

    @Test func readAgain_reportsBytesLeftBehind_onceEachTimeItIsAsked() throws {
        // Reads nothing and asks again twice, then stops asking.
        let (loop, channel, peer) = watchedPair { channel, loop in
            if channel.count <= 2 { loop.readAgain(channel) }
        }
        defer { _ = Glibc.close(peer) }
        write(peer)
        waitUntil { channel.count >= 3 }
        letTheLoopWaitAFewTimes()
        loop.stop()
        #expect(channel.count == 3)
    }

    @Test func readAgain_onADrainedSocket_reportsNothing() throws {
        let (loop, channel, peer) = watchedPair { channel, loop in
            channel.drain()
            loop.readAgain(channel)
        }
        defer { _ = Glibc.close(peer) }
        write(peer)
        waitUntil { channel.count >= 1 }
        letTheLoopWaitAFewTimes()
        #expect(channel.count == 1)
        // New bytes still bring their own report.
        write(peer)
        waitUntil { channel.count >= 2 }
        loop.stop()
        #expect(channel.count == 2)
    }

    @Test func thePeersShutdown_isReportedWithTheRead() throws {
        let (loop, channel, peer) = watchedPair { channel, _ in channel.drain() }
        defer { _ = Glibc.close(peer) }
        write(peer)
        waitUntil { channel.count >= 1 }
        shutdown(peer, Int32(SHUT_WR))
        waitUntil { channel.count >= 2 }
        loop.stop()
        #expect(channel.shutdownsSeen == [false, true])
    }

    @Test func resumingReading_reportsBytesThatArrivedWhilePaused() throws {
        let (loop, channel, peer) = watchedPair { channel, _ in channel.drain() }
        defer { _ = Glibc.close(peer) }
        let paused = DispatchSemaphore(value: 0)
        loop.execute {
            loop.setInterest(channel, read: false, write: false)
            paused.signal()
        }
        paused.wait()
        // Arrives while nobody listens: its edge is gone by the time reading resumes.
        write(peer)
        letTheLoopWaitAFewTimes()
        #expect(channel.count == 0)
        loop.execute { loop.setInterest(channel, read: true, write: false) }
        waitUntil { channel.count >= 1 }
        loop.stop()
        #expect(channel.count == 1)
    }

    // MARK: - Connections

    @Test func connectionsAreWatchedEdgeTriggered_theListenerLevelTriggered() throws {
        let server = try TestServer(kind: .epoll)
        defer { server.stop() }
        let client = try server.client()
        try client.send("GET / HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(try client.readResponse().status == 200)
        let watched = Self.epollInterests()
        let connection = try #require(Self.socketInode(localPort: server.port, remotePort: Self.localPort(of: client.fd)))
        let listeners = Self.listeningInodes(port: server.port)
        try #require(listeners.count == 2)
        let edgeTriggered: UInt32 = 1 << 31
        let connectionEvents = try #require(watched[connection])
        #expect(connectionEvents & edgeTriggered != 0)
        for listener in listeners {
            let events = try #require(watched[listener])
            #expect(events & edgeTriggered == 0)
        }
    }

    /// Each loop can take the body only 64 KiB a read; the rest waits in the socket with nothing more on its way.
    @Test(arguments: EventLoopKind.allCases)
    func aBodyLargerThanOneRead_waitingWhole_isReadToItsEnd(kind: EventLoopKind) throws {
        let server = try TestServer(kind: kind)
        defer { server.stop() }
        let client = try server.client(timeout: 3)
        let body = [UInt8]((0..<100_000).map { UInt8(truncatingIfNeeded: $0 % 251) })
        try whileTheLoopIsHeld(client) {
            try client.send(Array("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: \(body.count)\r\n\r\n".utf8) + body)
        }
        #expect(try client.readResponse().bodyText == #"{"held":true}"#)
        #expect(try client.readResponse().body == body)
    }

    /// The request and the client's shutdown wait in the socket together: both are read, the answer sent, and the
    /// connection closed, long before its idle timeout.
    @Test(arguments: EventLoopKind.allCases)
    func aRequestAndTheClientsShutdown_waitingTogether_areAnsweredAndClosed(kind: EventLoopKind) throws {
        let server = try TestServer(kind: kind) { $0.timeouts.keepAliveIdle = .seconds(30) }
        defer { server.stop() }
        let client = try server.client(timeout: 3)
        try whileTheLoopIsHeld(client) {
            try client.send("GET /after HTTP/1.1\r\nHost: t\r\n\r\n")
            client.halfClose()
        }
        #expect(try client.readResponse().bodyText == #"{"held":true}"#)
        #expect(try client.readResponse().bodyText == #"{"ok":true}"#)
        #expect(client.isClosedByServer())
        #expect(server.responder.targets == ["/hold", "/after"])
    }

    /// A read stops short at urgent data's mark with the next request behind it: the loop is asked to look again,
    /// and the next read skips the urgent byte (never part of the stream) and goes on. A client's urgent byte must
    /// not leave its own later requests unread until a deadline.
    @Test(arguments: EventLoopKind.allCases)
    func requestsBehindUrgentData_waitingTogether_areAllAnswered(kind: EventLoopKind) throws {
        let server = try TestServer(kind: kind)
        defer { server.stop() }
        let client = try server.client(timeout: 3)
        try whileTheLoopIsHeld(client) {
            try client.send("GET /before HTTP/1.1\r\nHost: t\r\n\r\n")
            try client.sendUrgent(UInt8(ascii: "!"))
            try client.send("GET /after HTTP/1.1\r\nHost: t\r\n\r\n")
        }
        #expect(try client.readResponse().bodyText == #"{"held":true}"#)
        #expect(try client.readResponse().status == 200)
        #expect(try client.readResponse().status == 200)
        #expect(server.responder.targets == ["/hold", "/before", "/after"])
    }

    /// After a closing answer the server shuts its side and reads until the client's end of file. The client's
    /// leftover bytes and its shutdown waited together: the hang-up is reported once, and the connection still ends
    /// at once, not at the linger's deadline. (The Dispatch loop's read source does not fire for an end of file
    /// that waited behind bytes it read: there such a connection ends at the deadline.)
    @Test func lingering_readsTheClientsLeftoversAndShutdown_andClosesAtOnce() throws {
        let server = try TestServer(kind: .epoll) { $0.timeouts.lingerClose = .seconds(30) }
        defer { server.stop() }
        let client = try server.client(timeout: 3)
        try whileTheLoopIsHeld(client, hold: "GET /hold HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n") {
            try client.send("GET /ignored HTTP/1.1\r\nHost: t\r\n\r\n")
            client.halfClose()
        }
        let answer = try client.readResponse()
        #expect(answer.bodyText == #"{"held":true}"#)
        #expect(answer.header("Connection") == "close")
        #expect(client.isClosedByServer())
        waitUntil { server.server.openConnections == 0 }
        #expect(server.server.openConnections == 0)
        #expect(server.responder.targets == ["/hold"])
    }

    // MARK: - Reading the kernel's tables

    /// Every descriptor some epoll instance of this process watches, by its socket's inode: the interest bits.
    static func epollInterests() -> [UInt64: UInt32] {
        var interests: [UInt64: UInt32] = [:]
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for name in descriptors {
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(name)"),
                target == "anon_inode:[eventpoll]",
                let info = procFile("/proc/self/fdinfo/\(name)")
            else { continue }
            for line in info.split(separator: "\n") where line.hasPrefix("tfd:") {
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                guard let tfd = fields.firstIndex(of: "tfd:").map({ fields[$0 + 1] }),
                    let events = fields.firstIndex(of: "events:").flatMap({ UInt32(fields[$0 + 1], radix: 16) }),
                    let socket = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(tfd)"),
                    socket.hasPrefix("socket:["), let inode = UInt64(socket.dropFirst(8).dropLast())
                else { continue }
                interests[inode] = events
            }
        }
        return interests
    }

    /// A `/proc` file read to its end: they report no size, and a busy machine's tables run to many pages.
    static func procFile(_ path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let data = try? handle.readToEnd() else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    static func localPort(of fd: Int32) -> Int {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// `/proc/net/tcp`'s rows: local port, remote port, state, inode.
    static func tcpRows() -> [(local: Int, remote: Int, state: String, inode: UInt64)] {
        guard let table = procFile("/proc/net/tcp") else { return [] }
        return table.split(separator: "\n").dropFirst().compactMap { line in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count > 9, let local = fields[1].split(separator: ":").last.flatMap({ Int($0, radix: 16) }),
                let remote = fields[2].split(separator: ":").last.flatMap({ Int($0, radix: 16) }),
                let inode = UInt64(fields[9])
            else { return nil }
            return (local, remote, String(fields[3]), inode)
        }
    }

    static func socketInode(localPort: Int, remotePort: Int) -> UInt64? {
        tcpRows().first { $0.local == localPort && $0.remote == remotePort }?.inode
    }

    /// `0A` is TCP_LISTEN.
    static func listeningInodes(port: Int) -> [UInt64] {
        tcpRows().filter { $0.local == port && $0.state == "0A" }.map(\.inode)
    }
}
#endif
