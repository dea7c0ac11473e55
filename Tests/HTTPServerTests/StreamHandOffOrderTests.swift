#if canImport(Glibc)
import Foundation
import Glibc
import HTTP
import NetworkFixtures
import Synchronization
import Testing

@testable import HTTPServer

/// What the loop writes to a stream of its own accord (the shutdown comment, heartbeats) goes behind the events a
/// publisher on another thread handed over and the loop has not written yet, as every event does: written at
/// once, it lands inside the chunk the last direct write began.
@Suite(.serialized) struct StreamHandOffOrderTests {
    /// Events of some 8 KiB, numbered, as SSE `data` lines.
    private static func frame(_ number: Int) -> EventFrame {
        EventFrame(Array("data: \(number) \(String(repeating: "x", count: 8000))\n\n".utf8))
    }

    /// Runs `body` on every loop of the server, without waiting for it.
    private func onEveryLoop(_ server: TestServer, _ body: @escaping @Sendable () -> Void) {
        for loop in server.server.loops { loop.execute(body) }
    }

    @Test func shutdown_endsAStreamAfterEveryEventHandedOverBeforeIt() throws {
        // One loop, so the drain is queued right after the listener closes, behind the second hold.
        let server = try TestServer(kind: .epoll) {
            $0.loopCount = 1
            $0.drainTimeout = .seconds(5)
        }
        let client = try TestClient(port: server.port, timeout: 5, receiveBuffer: 4096)
        try client.send("GET /events HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(try client.readHead().status == 200)
        // The head goes out before the responder keeps the stream.
        for _ in 0..<200 where server.responder.streams.withLock({ $0.isEmpty }) { Thread.sleep(forTimeInterval: 0.005) }
        let stream = try #require(server.responder.streams.withLock { $0.first })

        // The loops are held while the shutdown queues its drain behind the first hold; the events are then
        // published, and their hand-offs queue behind the drain, which runs first.
        onEveryLoop(server) { Thread.sleep(forTimeInterval: 0.2) }
        let stopped = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            server.stop()
            stopped.signal()
        }
        Thread.sleep(forTimeInterval: 0.05)
        onEveryLoop(server) { Thread.sleep(forTimeInterval: 0.4) }
        Thread.sleep(forTimeInterval: 0.3)
        // Not a loop thread: each goes straight to the socket until it is full; the rest is handed over.
        let count = 40
        for number in 0..<count { stream.send(Self.frame(number), direct: true) }

        var events: [String] = []
        while events.count < count + 1 { events += try client.readEvents(1) }
        for (number, event) in events.prefix(count).enumerated() {
            #expect(event.hasPrefix("data: \(number) "), "event \(number): \(event.prefix(24))")
            #expect(event.utf8.count == 8000 + "data: \(number) ".utf8.count, "event \(number) is not whole")
        }
        #expect(events.last == ": specd is shutting down")
        // Then the last chunk: the stream ended whole.
        do {
            let more = try client.readEvents(1)
            Issue.record("more after the shutdown comment: \(more)")
        } catch let failure as TestClient.Failure {
            #expect(failure.description == "stream ended")
        }
        stopped.wait()
    }
}
#endif
