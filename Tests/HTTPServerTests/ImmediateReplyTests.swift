#if canImport(Glibc)
import Foundation
import Glibc
import HTTP
import NetworkFixtures
import Synchronization
import Testing

@testable import HTTPServer

/// A reply made while its request is read (a read the answer cache serves) is written at once, as nginx writes each
/// answer as it makes it; held for the round's end, it waited for every other connection the round read. A reply
/// made later (a write's, once its log batch is written) still goes out with the round's others.
@Suite struct ImmediateReplyTests {
    /// `/hold` keeps the loop busy while the test's other clients send, so their requests are ready in one round.
    /// `/probe` answers at once; the second probe of that round first looks (for up to a second, its loop meanwhile
    /// held) whether the first probe's client has its answer, and records what it saw.
    /// A second, not less: on a loaded machine loopback delivery can lag the send.
    final class ProbingResponder: Responder {
        let hold: Duration
        /// The two probing clients' sockets, set by the test before they send.
        let probeClients = Mutex<[Int32]>([])
        /// Per probe, in the order answered: how many probing clients could read an answer when it was made.
        let seen = Mutex<[Int]>([])
        /// The server, for `/counted`: whether its loop had waiting work before and after the answer was sent.
        let server = Mutex<HTTPServer?>(nil)
        let waitingWork = Mutex<[Bool]>([])

        init(hold: Duration) { self.hold = hold }

        func respond(to request: consuming Request, sink: consuming ResponseSink) {
            switch request.path {
            case "/hold":
                Thread.sleep(forTimeInterval: Double(hold.millisecondsForTimers) / 1000)
                sink.send(.json(.ok, #"{"held":true}"#))
            case "/probe":
                let clients = probeClients.withLock { $0 }
                let isSecond = seen.withLock { $0.count } == 1
                var readable = 0
                for fd in clients {
                    var socket = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                    if Glibc.poll(&socket, 1, isSecond ? 1_000 : 0) == 1 { readable += 1 }
                }
                seen.withLock { $0.append(readable) }
                sink.send(.json(.ok, #"{"probe":true}"#))
            case "/counted":
                let server = server.withLock { $0 }
                let before = server?.currentLoopHasWaitingWork ?? true
                sink.send(.json(.ok, #"{"counted":true}"#))
                let after = server?.currentLoopHasWaitingWork ?? false
                waitingWork.withLock { $0 = [before, after] }
            default:
                sink.send(.json(.ok, #"{"ok":true}"#))
            }
        }
    }

    /// A server on one epoll loop, so every connection shares its rounds.
    private func oneLoopServer(_ responder: ProbingResponder) throws -> HTTPServer {
        let server = HTTPServer(configuration: ServerConfiguration(host: "127.0.0.1", port: 0, eventLoop: .epoll, loopCount: 1))
        try server.start(serving: responder)
        return server
    }

    @Test func aReplyMadeWhileReading_isWrittenBeforeTheRoundReadsTheNextConnection() throws {
        let responder = ProbingResponder(hold: .milliseconds(200))
        let server = try oneLoopServer(responder)
        defer { server.shutdown() }
        let holder = try TestClient(port: server.port)
        let first = try TestClient(port: server.port)
        let second = try TestClient(port: server.port)
        // Each connection accepted and served once, so the probes below are plain reads on open connections.
        for client in [holder, first, second] {
            try client.send("GET /warm HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try client.readResponse().status == 200)
        }
        responder.probeClients.withLock { $0 = [first.fd, second.fd] }
        try holder.send("GET /hold HTTP/1.1\r\nHost: x\r\n\r\n")
        // While the loop holds, both probes arrive: its next wait reports them together.
        Thread.sleep(forTimeInterval: 0.05)
        try first.send("GET /probe HTTP/1.1\r\nHost: x\r\n\r\n")
        try second.send("GET /probe HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try holder.readResponse().status == 200)
        #expect(try first.readResponse().status == 200)
        #expect(try second.readResponse().status == 200)
        // The first probe saw no answer anywhere; the second saw the first's, sent before it was read.
        #expect(responder.seen.withLock { $0 } == [0, 1])
    }

    /// The reply sent at once is still waiting work for the round (a log batch's fsync must not block the loop
    /// behind it), as it was while it waited in the queue.
    @Test func aReplySentAtOnce_leavesTheRoundWithWaitingWork() throws {
        let responder = ProbingResponder(hold: .milliseconds(1))
        let server = try oneLoopServer(responder)
        defer { server.shutdown() }
        responder.server.withLock { $0 = server }
        let client = try TestClient(port: server.port)
        try client.send("GET /counted HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try client.readResponse().status == 200)
        // Recorded just after the answer went out: the client may read it first.
        for _ in 0..<500 where responder.waitingWork.withLock({ $0.isEmpty }) { Thread.sleep(forTimeInterval: 0.002) }
        #expect(responder.waitingWork.withLock { $0 } == [false, true])
    }

    /// Requests that came in one packet: the answers the first ones made wait for the last one's and go out with
    /// it, one write for the lot, as before.
    @Test func pipelinedRequests_answersMadeWhileMoreAreBuffered_goOutTogether() throws {
        let responder = ProbingResponder(hold: .milliseconds(1))
        let server = try oneLoopServer(responder)
        defer { server.shutdown() }
        let client = try TestClient(port: server.port)
        responder.probeClients.withLock { $0 = [client.fd] }
        try client.send("GET /probe HTTP/1.1\r\nHost: x\r\n\r\nGET /probe HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try client.readResponse().status == 200)
        #expect(try client.readResponse().status == 200)
        // When the second was answered, the first's answer had not been written yet.
        #expect(responder.seen.withLock { $0 } == [0, 0])
    }
}
#endif
