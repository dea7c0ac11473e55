#if canImport(Glibc)
import Foundation
import Glibc
import HTTP
import Synchronization
import NetworkFixtures
import Testing

@testable import HTTPServer

/// The epoll loop lends an HTTP connection to its readiness events unretained, and keeps a channel it closes (or
/// replaces) alive until the round ends: a handler that closes its own channel goes on using it safely, and nothing
/// closed stays held once its round is over.
@Suite struct ClosedChannelLifetimeTests {
    /// Closes itself when read, then reads its own fields: still alive, as the round holds it.
    final class SelfClosing: Channel, @unchecked Sendable {
        let fd: Int32
        let name: String
        let log: LoopLog
        let loop: EpollEventLoop

        init(fd: Int32, name: String, log: LoopLog, loop: EpollEventLoop) {
            self.fd = fd
            self.name = name
            self.log = log
            self.loop = loop
        }

        func readable() {
            loop.close(self)
            log.append("closed \(name)")
        }

        func writable() {}
        func tick(now: MonotonicInstant) {}
    }

    /// A weak reference that another thread can read.
    final class Watch: @unchecked Sendable {
        private let lock = NSLock()
        private weak var watched: AnyObject?
        init(_ object: AnyObject) { watched = object }
        var isGone: Bool { lock.withLock { watched == nil } }
    }

    private func waitUntil(_ condition: () -> Bool) -> Bool {
        for _ in 0..<500 {
            if condition() { return true }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return condition()
    }

    @Test func aChannelClosedByItsOwnHandler_isFreedOnceItsRoundEnds() {
        let loop = EpollEventLoop()
        let log = LoopLog()
        let pair = nonBlockingPipe()
        defer { _ = Glibc.close(pair.write) }
        var channel: SelfClosing? = SelfClosing(fd: pair.read, name: "self", log: log, loop: loop)
        let watch = Watch(channel!)
        loop.add(channel!)
        // The loop's table is its only holder from here.
        channel = nil
        #expect(!watch.isGone)
        loop.start()
        var byte: UInt8 = 1
        _ = Glibc.write(pair.write, &byte, 1)
        #expect(waitUntil { log.all == ["closed self"] })
        #expect(waitUntil { watch.isGone }, "a closed channel was still held after its round")
        loop.stop()
    }

    @Test func aChannelReplacedOnItsDescriptorWithoutAClose_isFreedOnceTheRoundEnds() {
        let loop = EpollEventLoop()
        let log = LoopLog()
        let pair = nonBlockingPipe()
        defer { [pair.read, pair.write].forEach { _ = Glibc.close($0) } }
        var first: PipeChannel? = PipeChannel(fd: pair.read, name: "first", log: log)
        let watch = Watch(first!)
        loop.add(first!)
        first = nil
        loop.start()
        // Replaced on the loop's thread, as every change to its table is made.
        let second = PipeChannel(fd: pair.read, name: "second", log: log)
        loop.execute { loop.add(second) }
        #expect(waitUntil { watch.isGone }, "a replaced channel was still held after its round")
        var byte: UInt8 = 1
        _ = Glibc.write(pair.write, &byte, 1)
        #expect(waitUntil { log.all == ["read second"] })
        loop.stop()
    }

    /// Through a real server: connections that a refusal closes in their own read, one after another, are each
    /// answered and closed, and the loop holds none of them afterwards.
    @Test func connectionsClosedWhileTheirRequestIsRead_areAnsweredAndLetGo() throws {
        let server = try TestServer()
        defer { server.stop() }
        for _ in 0..<20 {
            let client = try server.client()
            // A framing error: answered 400 and closed while the loop reads the request.
            try client.send("GET / HTTP/1.1\r\nHost: a\r\nContent-Length: x\r\n\r\n")
            #expect(try client.readResponse().status == 400)
            #expect(client.isClosedByServer())
        }
        #expect(waitUntil { server.server.openConnections == 0 })
    }
}
#endif
