import Foundation
import HTTP
import HTTPFixtures
import NetworkFixtures
import Synchronization
import Testing

@testable import HTTPServer

#if canImport(Glibc)
import Glibc
#endif

@Suite(.serialized) struct ConnectionTests {
    @Test(arguments: EventLoopKind.allCases)
    func keepAlive_servesManyRequestsOnOneConnection(kind: EventLoopKind) throws {
        let server = try TestServer(kind: kind)
        defer { server.stop() }
        let client = try server.client()
        for index in 0..<5 {
            try client.send("GET /r\(index) HTTP/1.1\r\nHost: t\r\n\r\n")
            let response = try client.readResponse()
            #expect(response.status == 200)
            #expect(response.header("Connection") == nil)
        }
        #expect(server.server.acceptedConnections == 1)
        #expect(server.responder.targets == (0..<5).map { "/r\($0)" })
    }

    @Test(arguments: EventLoopKind.allCases)
    func pipelining_answersInRequestOrderEvenWhenTheFirstIsSlow(kind: EventLoopKind) throws {
        let server = try TestServer(kind: kind)
        defer { server.stop() }
        let client = try server.client()
        try client.send(
            "GET /slow HTTP/1.1\r\nHost: t\r\n\r\nPOST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nhelloGET /third HTTP/1.1\r\nHost: t\r\n\r\n"
        )
        #expect(try client.readResponse().bodyText == #"{"slow":true}"#)
        #expect(try client.readResponse().bodyText == "hello")
        #expect(try client.readResponse().bodyText == #"{"ok":true}"#)
        #expect(server.responder.targets == ["/slow", "/echo", "/third"])
    }

    @Test(arguments: EventLoopKind.allCases)
    func largeResponseToASlowReader_arrivesWholeAfterPartialWrites(kind: EventLoopKind) throws {
        let server = try TestServer(kind: kind)
        defer { server.stop() }
        let client = try server.client()
        try client.send("GET /big HTTP/1.1\r\nHost: t\r\n\r\nGET /after HTTP/1.1\r\nHost: t\r\n\r\n")
        Thread.sleep(forTimeInterval: 0.2)
        let response = try client.readResponse()
        #expect(response.body == TestServer.bigBody)
        #expect(try client.readResponse().bodyText == #"{"ok":true}"#)
    }

    @Test(arguments: EventLoopKind.allCases)
    func slowHeader_isAnswered408AndClosed(kind: EventLoopKind) throws {
        let server = try TestServer(kind: kind) { $0.timeouts.header = .milliseconds(300) }
        defer { server.stop() }
        let client = try server.client()
        try client.send("GET / HTTP/1.1\r\nHost: t\r\n")
        let response = try client.readResponse()
        #expect(response.status == 408)
        #expect(response.header("Connection") == "close")
        #expect(response.bodyText.contains("request_timeout"))
        #expect(client.isClosedByServer())
        #expect(server.responder.count == 0)
    }

    @Test(arguments: EventLoopKind.allCases)
    func bodyOverLimit_isRefused413BeforeItIsSent(kind: EventLoopKind) throws {
        let server = try TestServer(kind: kind) { $0.limits.maxBodyBytes = 1024 }
        defer { server.stop() }
        let client = try server.client()
        // Only the head is sent: the answer must not wait for the 10 MB the client announced.
        try client.send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 10000000\r\n\r\n")
        let response = try client.readResponse()
        #expect(response.status == 413)
        #expect(response.header("Connection") == "close")
        #expect(client.isClosedByServer())
        #expect(server.responder.count == 0)
    }

    @Test(arguments: EventLoopKind.allCases)
    func expectContinue_getsInterimResponseThenTheAnswer(kind: EventLoopKind) throws {
        let server = try TestServer(kind: kind)
        defer { server.stop() }
        let client = try server.client()
        try client.send("POST /echo HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n")
        #expect(try client.readResponse().status == 100)
        try client.send("abc")
        #expect(try client.readResponse().bodyText == "abc")
    }

    @Test(arguments: EventLoopKind.allCases)
    func connectionCap_answers503AndClosesTheExtraConnection(kind: EventLoopKind) throws {
        let server = try TestServer(kind: kind) { $0.maxConnections = 2 }
        defer { server.stop() }
        let first = try server.client()
        let second = try server.client()
        for client in [first, second] {
            try client.send("GET / HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try client.readResponse().status == 200)
        }
        let third = try server.client()
        // Over the cap the request is read first: probes are still answered (see the test below), others not.
        try third.send("GET / HTTP/1.1\r\nHost: t\r\n\r\n")
        let refused = try third.readResponse()
        #expect(refused.status == 503)
        #expect(refused.header("Retry-After") == "1")
        #expect(third.isClosedByServer())
        #expect(server.server.rejectedConnections == 1)
        try first.send("GET / HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(try first.readResponse().status == 200)
    }

    @Test(arguments: EventLoopKind.allCases)
    func requestLimitPerConnection_closesAfterTheLastOne(kind: EventLoopKind) throws {
        let server = try TestServer(kind: kind) { $0.timeouts.maxRequestsPerConnection = 3 }
        defer { server.stop() }
        let client = try server.client()
        for index in 1...3 {
            try client.send("GET / HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try client.readResponse().header("Connection") == (index == 3 ? "close" : nil))
        }
        #expect(client.isClosedByServer())
    }

    @Test(arguments: EventLoopKind.allCases)
    func idleKeepAlive_isClosedAfterItsTimeout(kind: EventLoopKind) throws {
        let server = try TestServer(kind: kind) { $0.timeouts.keepAliveIdle = .milliseconds(300) }
        defer { server.stop() }
        let client = try server.client()
        try client.send("GET / HTTP/1.1\r\nHost: t\r\n\r\n")
        _ = try client.readResponse()
        #expect(client.isClosedByServer())
    }

    @Test(arguments: EventLoopKind.allCases)
    func http10WithoutKeepAlive_closesAfterResponse(kind: EventLoopKind) throws {
        let server = try TestServer(kind: kind)
        defer { server.stop() }
        let client = try server.client()
        try client.send("GET / HTTP/1.0\r\n\r\n")
        let response = try client.readResponse()
        #expect(response.header("Connection") == "close")
        #expect(client.isClosedByServer())
    }

    @Test func head_hasLengthButNoBody_andRequestIdIsEchoedOrMade() throws {
        let server = try TestServer()
        defer { server.stop() }
        let client = try server.client()
        try client.send("HEAD / HTTP/1.1\r\nHost: t\r\nX-Request-Id: abc-123\r\n\r\nGET / HTTP/1.1\r\nHost: t\r\n\r\n")
        let head = try client.readResponse(isHead: true)
        #expect(head.header("Content-Length") == "11")
        #expect(head.header("X-Request-Id") == "abc-123")
        let get = try client.readResponse()
        #expect(get.bodyText == #"{"ok":true}"#)
        #expect(get.header("X-Request-Id")?.isEmpty == false)
    }

    @Test(arguments: EventLoopKind.allCases)
    func malformedRequests_getTheirStatusThenCloseAndNoHandlerRuns(kind: EventLoopKind) throws {
        let server = try TestServer(kind: kind)
        defer { server.stop() }
        for fixture in MalformedRequests.all {
            let client = try server.client()
            try client.send(fixture.bytes)
            let response = try client.readResponse()
            #expect(response.status == fixture.status, "\(fixture.name)")
            #expect(response.header("Connection") == "close", "\(fixture.name)")
            #expect(response.bodyText.contains("\"code\":\"\(fixture.error.code)\""), "\(fixture.name)")
            #expect(response.header("X-Request-Id") != nil, "\(fixture.name)")
            #expect(client.isClosedByServer(), "\(fixture.name)")
        }
        #expect(server.responder.count == 0)
    }

    /// A client that sends its request and half-closes (`printf … | nc -N`) gets its answer, and then the
    /// connection ends: it used to stay open, half-closed, until the idle deadline.
    @Test(arguments: EventLoopKind.allCases)
    func halfClosedPeer_isAnsweredAndThenClosed(kind: EventLoopKind) throws {
        let server = try TestServer(kind: kind)
        defer { server.stop() }
        let client = try server.client()
        try client.send("GET /slow HTTP/1.1\r\nHost: t\r\n\r\n")
        client.halfClose()
        let response = try client.readResponse()
        #expect(response.status == 200)
        #expect(response.bodyText == #"{"slow":true}"#)
        #expect(response.header("Connection") == "close")
        #expect(client.isClosedByServer())
        #expect(Self.waitUntil { server.server.openConnections == 0 })
    }

    /// Pipelined requests sent before the half-close are all answered, in order; the connection ends after the last.
    @Test(arguments: EventLoopKind.allCases)
    func halfClosedPeer_getsEveryPipelinedAnswer(kind: EventLoopKind) throws {
        let server = try TestServer(kind: kind)
        defer { server.stop() }
        let client = try server.client()
        try client.send("GET /slow HTTP/1.1\r\nHost: t\r\n\r\nGET /second HTTP/1.1\r\nHost: t\r\n\r\n")
        client.halfClose()
        let first = try client.readResponse()
        #expect(first.bodyText == #"{"slow":true}"#)
        #expect(first.header("Connection") == nil)
        let second = try client.readResponse()
        #expect(second.bodyText == #"{"ok":true}"#)
        #expect(second.header("Connection") == "close")
        #expect(client.isClosedByServer())
    }

    /// A reset reported while the answer is pending (and reading paused, the peer having half-closed) closes the
    /// connection at once. The loop used to ignore it, and the kernel reports a reset on every wait until the
    /// descriptor is closed: one such client kept a loop spinning at full CPU until the answer came. (The Dispatch
    /// loop suspends its read source while reading is paused: there the reset is found when the answer is sent.)
    @Test func resetWhileTheAnswerIsPending_closesTheConnectionAtOnce() throws {
        let server = try TestServer(kind: .epoll, slowDelay: .seconds(4))
        defer { server.stop() }
        let client = try server.client()
        try client.send("GET /slow HTTP/1.1\r\nHost: t\r\n\r\n")
        client.halfClose()
        #expect(Self.waitUntil { server.responder.count == 1 })
        #expect(server.server.openConnections == 1)
        client.reset()
        // Well before the answer at 4 s.
        #expect(Self.waitUntil(seconds: 2) { server.server.openConnections == 0 })
    }

    /// A `Connection: close` answer written over many writability events lingers from its last byte and then
    /// closes: the deadline is re-armed when the last write happens there, not left at the stall deadline it had
    /// while output waited (which kept the connection about 30 s).
    @Test func closingAnswerFinishedByAWritabilityEvent_closesAfterTheLinger() throws {
        let server = try TestServer(kind: .epoll) {
            $0.timeouts.lingerClose = .milliseconds(300)
            $0.timeouts.streamStall = .seconds(20)
        }
        defer { server.stop() }
        let client = try TestClient(port: server.port, timeout: 5, receiveBuffer: 4096)
        try client.send("GET /big HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        Thread.sleep(forTimeInterval: 0.3)
        let response = try client.readResponse()
        #expect(response.body.count == TestServer.bigBody.count)
        #expect(client.isClosedByServer())
        // The client keeps its socket open: only the server's linger deadline can close the connection.
        #expect(Self.waitUntil(seconds: 3) { server.server.openConnections == 0 })
    }

    /// Polls `condition` every 10 ms for up to `seconds`.
    static func waitUntil(seconds: Double = 5, _ condition: () -> Bool) -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while ContinuousClock.now < deadline {
            if condition() { return true }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return condition()
    }

    @Test(arguments: EventLoopKind.allCases)
    func shutdown_finishesInFlightClosesIdleAndStopsAccepting(kind: EventLoopKind) throws {
        let server = try TestServer(kind: kind)
        let idle = try server.client()
        try idle.send("GET / HTTP/1.1\r\nHost: t\r\n\r\n")
        _ = try idle.readResponse()
        let busy = try server.client()
        try busy.send("GET /slow HTTP/1.1\r\nHost: t\r\n\r\n")
        Thread.sleep(forTimeInterval: 0.05)
        let started = ContinuousClock.now
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            server.stop()
            done.signal()
        }
        let response = try busy.readResponse()
        #expect(response.status == 200)
        #expect(response.header("Connection") == "close")
        #expect(busy.isClosedByServer())
        #expect(idle.isClosedByServer())
        #expect(done.wait(timeout: .now() + 5) == .success)
        #expect(ContinuousClock.now - started < .seconds(5))
        #expect(throws: (any Error).self) { _ = try server.client(timeout: 1).readResponse() }
    }

    /// Pipelined requests whose answers are never read: the connection stops reading (and parsing) while more
    /// than the output limit waits, so what the server holds stays bounded; reading the answers resumes it.
    @Test(arguments: EventLoopKind.allCases)
    func pipelinedRequestsNeverRead_pendingOutputStaysBounded_thenEveryAnswerArrivesInOrder(kind: EventLoopKind) throws {
        let server = try TestServer(kind: kind)
        defer { server.stop() }
        let client = try TestClient(port: server.port, timeout: 5, receiveBuffer: 4096)
        let count = 400
        try client.send((0..<count).map { "GET /kb/\($0) HTTP/1.1\r\nHost: t\r\n\r\n" }.joined())
        // Until the server stops making progress: the kernel's buffers fill first, then ours up to the limit.
        var handled = -1
        for _ in 0..<100 where handled != server.responder.count {
            handled = server.responder.count
            Thread.sleep(forTimeInterval: 0.1)
        }
        let buffered = server.server.bufferedBytes()
        #expect(buffered.pendingOutput <= 256 * 1024 + TestServer.kilobytes)
        #expect(buffered.unparsedInput <= 64 * 1024)
        #expect(server.responder.count < count)
        for index in 0..<count {
            let response = try client.readResponse()
            #expect(response.body.count == TestServer.kilobytes)
            #expect(response.body.starts(with: Array("/kb/\(index)".utf8)), "answer \(index) out of order")
        }
        #expect(server.responder.count == count)
    }

    @Test(arguments: EventLoopKind.allCases)
    func slowBody_withSteadyProgress_isAnswered408AtTheTotalBodyDeadline(kind: EventLoopKind) throws {
        let server = try TestServer(kind: kind) { $0.timeouts.body = .seconds(1) }
        defer { server.stop() }
        let client = try server.client(timeout: 4)
        try client.send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 100\r\n\r\n")
        let started = ContinuousClock.now
        let fd = client.fd
        let stop = Atomic<Bool>(false)
        // One byte every 100 ms: well inside the idle deadline, so only the total deadline can end it.
        let dripper = Thread {
            while !stop.load(ordering: .relaxed) {
                var byte = UInt8(ascii: "x")
                _ = Glibc.send(fd, &byte, 1, Int32(MSG_NOSIGNAL))
                Thread.sleep(forTimeInterval: 0.1)
            }
        }
        dripper.start()
        defer { stop.store(true, ordering: .relaxed) }
        let response = try client.readResponse()
        let elapsed = ContinuousClock.now - started
        #expect(response.status == 408)
        #expect(response.header("Connection") == "close")
        #expect(elapsed >= .milliseconds(900) && elapsed < .seconds(3))
        #expect(server.responder.count == 0)
    }

    @Test(arguments: EventLoopKind.allCases)
    func connectionsFromOneClient_overItsCap_get429AndClose_untilOneCloses(kind: EventLoopKind) throws {
        let server = try TestServer(kind: kind) { $0.maxConnectionsPerClient = 2 }
        defer { server.stop() }
        var held = try (0..<2).map { _ in try server.client() }
        for client in held {
            try client.send("GET /x HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try client.readResponse().status == 200)
        }
        // The request is read first (a probe would be answered, see below); anything else is refused.
        let refused = try server.client()
        try refused.send("GET /x HTTP/1.1\r\nHost: t\r\n\r\n")
        let response = try refused.readResponse()
        #expect(response.status == 429)
        #expect(response.header("Retry-After") != nil)
        #expect(response.bodyText.contains("too_many_client_connections"))
        #expect(refused.isClosedByServer())
        held.removeFirst()
        // The server learns of the close on its next read; a new connection then gets the freed slot.
        var status = 0
        for _ in 0..<40 where status != 200 {
            Thread.sleep(forTimeInterval: 0.05)
            let again = try server.client()
            try? again.send("GET /x HTTP/1.1\r\nHost: t\r\n\r\n")
            status = (try? again.readResponse().status) ?? 0
        }
        #expect(status == 200)
    }

    /// A cluster's other members are exempt from the per-client cap (each comes as one client for every user it
    /// forwards): an uncapped address opens past it; once the exemption is withdrawn, the cap holds again.
    @Test func uncappedClient_opensPastThePerClientCap_untilWithdrawn() throws {
        let server = try TestServer { $0.maxConnectionsPerClient = 2 }
        defer { server.stop() }
        server.server.setUncappedClients(["127.0.0.1"])
        let held = try (0..<4).map { _ in try server.client() }
        for client in held {
            try client.send("GET /x HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try client.readResponse().status == 200)
        }
        server.server.setUncappedClients([])
        let refused = try server.client()
        try refused.send("GET /x HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(try refused.readResponse().status == 429)
    }

    /// Which cap a probe meets: the global one (other requests get 503), or its own address's (429) — a kubelet
    /// often shares its address with clients, and a client at its cap must not fail liveness.
    enum ConnectionCap: CaseIterable, Sendable {
        case global, perClient
        var held: Int { self == .global ? 2 : 4 }
        var refusal: (status: Int, code: String) { self == .global ? (503, "too_many_connections") : (429, "too_many_client_connections") }
    }

    /// Over either cap, `/healthz` and `/readyz` are still answered (then closed); anything else is refused.
    @Test(arguments: EventLoopKind.allCases, ConnectionCap.allCases)
    func connectionCapReached_healthAndReadinessStillAnswer_otherRequestsAreRefused(kind: EventLoopKind, cap: ConnectionCap) throws {
        let server = try TestServer(kind: kind) {
            if cap == .global { $0.maxConnections = cap.held } else { $0.maxConnectionsPerClient = cap.held }
        }
        defer { server.stop() }
        let held = try (0..<cap.held).map { _ in try server.client() }
        for client in held {
            try client.send("GET /x HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try client.readResponse().status == 200)
        }
        for path in ["/healthz", "/readyz", "/healthz"] {
            let probe = try server.client()
            try probe.send("GET \(path) HTTP/1.1\r\nHost: t\r\n\r\n")
            let response = try probe.readResponse()
            #expect(response.status == 200, "\(path)")
            #expect(response.header("Connection") == "close")
            #expect(probe.isClosedByServer())
        }
        let other = try server.client()
        try other.send("GET /x HTTP/1.1\r\nHost: t\r\n\r\n")
        let refused = try other.readResponse()
        #expect(refused.status == cap.refusal.status)
        #expect(refused.bodyText.contains(cap.refusal.code))
        if cap == .perClient { #expect(refused.header("Retry-After") == "1") }
        #expect(other.isClosedByServer())
        #expect(server.responder.targets.filter { $0 == "/x" }.count == cap.held)
    }

    /// Over the connection cap, a probe answered in the same round in which a newer probe evicts it: its reply was
    /// waiting for the round's end when the eviction closed it, and is sent before the close.
    @Test func probeAnsweredInTheRoundItIsEvicted_stillGetsItsAnswer() throws {
        /// Holds the loop's thread on `/block`, so the next round finds the probe's request and the newcomer at once.
        final class BlockingResponder: Responder {
            func respond(to request: consuming Request, sink: consuming ResponseSink) {
                if request.path == "/block" { Thread.sleep(forTimeInterval: 0.3) }
                sink.send(.json(.ok, #"{"ok":true}"#))
            }
        }
        let configuration = ServerConfiguration(host: "127.0.0.1", port: 0, eventLoop: .epoll, loopCount: 1, maxConnections: 1)
        let server = HTTPServer(configuration: configuration, events: RecordingServerEvents())
        try server.start(serving: BlockingResponder())
        defer { server.shutdown() }
        let held = try TestClient(port: server.port)
        try held.send("GET /x HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(try held.readResponse().status == 200)
        let probes = try (0..<Listener.probeSlots).map { _ in try TestClient(port: server.port) }
        Thread.sleep(forTimeInterval: 0.2)
        try held.send("GET /block HTTP/1.1\r\nHost: t\r\n\r\n")
        Thread.sleep(forTimeInterval: 0.1)
        // While the loop is held: the oldest probe asks, then one more probe connects (ready in that order).
        try probes[0].send("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
        let newcomer = try TestClient(port: server.port)
        #expect(try probes[0].readResponse().status == 200)
        #expect(try held.readResponse().status == 200)
        _ = newcomer
    }

    /// The refusal carries the date it was made, not the date the listener started.
    @Test(arguments: EventLoopKind.allCases)
    func clientOverItsCap_refusalDate_isTheCurrentSecond(kind: EventLoopKind) throws {
        let server = try TestServer(kind: kind) { $0.maxConnectionsPerClient = 1 }
        defer { server.stop() }
        let held = try server.client()
        try held.send("GET /x HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(try held.readResponse().status == 200)
        Thread.sleep(forTimeInterval: 1.2)
        let before = HTTPDate.format(unixSeconds: Int(Date().timeIntervalSince1970))
        let refused = try server.client()
        try refused.send("GET /x HTTP/1.1\r\nHost: t\r\n\r\n")
        let response = try refused.readResponse()
        let after = HTTPDate.format(unixSeconds: Int(Date().timeIntervalSince1970))
        #expect(response.status == 429)
        let date = response.header("Date") ?? ""
        #expect(date == before || date == after, "Date \(date) not in [\(before), \(after)]")
    }
}
