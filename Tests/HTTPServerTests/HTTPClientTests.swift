import Foundation
import HTTP
import Synchronization
import Testing

@testable import HTTPServer

#if canImport(Glibc)
import Glibc
#endif

@Suite struct HTTPClientTests {
    private func endpoint(_ port: Int) -> HTTPClient.Endpoint { HTTPClient.Endpoint(host: "127.0.0.1", port: port) }

    // MARK: - Against the real server

    @Test func send_toTheServer_getsStatusHeadersAndBody() throws {
        let server = try TestServer()
        defer { server.stop() }
        let client = HTTPClient()
        let response = try client.send(method: "GET", path: "/anything", to: endpoint(server.port), timeout: .seconds(5))
        #expect(response.status == 200)
        #expect(String(decoding: response.body, as: UTF8.self) == #"{"ok":true}"#)
        #expect(response.header("content-type")?.hasPrefix("application/json") == true)
        #expect(client.idleConnectionCount(for: endpoint(server.port)) == 1)
    }

    @Test func send_postBodyAndBigAnswer_arriveWhole() throws {
        let server = try TestServer()
        defer { server.stop() }
        let client = HTTPClient()
        let body = Array("{\"x\":1}".utf8)
        let echo = try client.send(
            method: "POST", path: "/echo", headers: [("Content-Type", "application/json")], body: body, to: endpoint(server.port),
            timeout: .seconds(5))
        #expect(echo.body == body)
        let big = try client.send(method: "GET", path: "/big", to: endpoint(server.port), timeout: .seconds(10))
        #expect(big.body == TestServer.bigBody)
        #expect(throws: HTTPClientError.invalidResponse(.bodyTooLarge)) {
            try client.send(method: "GET", path: "/big", to: endpoint(server.port), timeout: .seconds(10), maxBodyBytes: 1024)
        }
    }

    @Test func send_fromManyThreadsAtOnce_everyAnswerIsRight() throws {
        let server = try TestServer()
        defer { server.stop() }
        let client = HTTPClient()
        let failures = Mutex(0)
        let target = endpoint(server.port)
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for index in 0..<25 {
                let body = Array("\(thread)-\(index)".utf8)
                let answer = try? client.send(method: "POST", path: "/echo", body: body, to: target, timeout: .seconds(5))
                if answer?.body != body { failures.withLock { $0 += 1 } }
            }
        }
        #expect(failures.withLock { $0 } == 0)
        #expect(client.idleConnectionCount(for: target) <= client.maxIdlePerEndpoint)
    }

    // MARK: - Keep-alive and stale connections

    @Test func send_keepAlive_reusesOneConnection() throws {
        let listener = try RawListener { peer, _ in
            while peer.readRequest() != nil { peer.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok") }
        }
        defer { listener.stop() }
        let client = HTTPClient()
        for _ in 0..<3 { #expect(try client.send(method: "GET", path: "/", to: endpoint(listener.port), timeout: .seconds(5)).status == 200) }
        #expect(listener.acceptedCount == 1)
    }

    @Test func send_connectionClose_isNotPooled() throws {
        let listener = try RawListener { peer, _ in
            if peer.readRequest() != nil { peer.write("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n") }
        }
        defer { listener.stop() }
        let client = HTTPClient()
        _ = try client.send(method: "GET", path: "/", to: endpoint(listener.port), timeout: .seconds(5))
        #expect(client.idleConnectionCount(for: endpoint(listener.port)) == 0)
    }

    /// The server takes the second request on a kept connection and closes without a word, as one does when its
    /// idle timer fires just as the request arrives.
    private func closingAfterFirstAnswer() throws -> RawListener {
        try RawListener { peer, listener in
            let connection = listener.acceptedCount
            guard let first = peer.readRequest() else { return }
            listener.record(first)
            peer.write("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\n\(connection)")
            if peer.readRequest() != nil { return }
        }
    }

    @Test func send_idempotentOnConnectionClosedUnanswered_isRetriedOnceOnAFreshOne() throws {
        let listener = try closingAfterFirstAnswer()
        defer { listener.stop() }
        let client = HTTPClient()
        _ = try client.send(method: "GET", path: "/", to: endpoint(listener.port), timeout: .seconds(5))
        let second = try client.send(method: "GET", path: "/", to: endpoint(listener.port), timeout: .seconds(5))
        #expect(second.status == 200)
        #expect(listener.acceptedCount == 2)
    }

    @Test func send_postOnConnectionClosedUnanswered_isNotRepeated() throws {
        let listener = try closingAfterFirstAnswer()
        defer { listener.stop() }
        let client = HTTPClient()
        _ = try client.send(method: "POST", path: "/", body: [1], to: endpoint(listener.port), timeout: .seconds(5))
        #expect(throws: HTTPClientError.invalidResponse(.endOfInput(during: .beforeResponse))) {
            try client.send(method: "POST", path: "/", body: [2], to: endpoint(listener.port), timeout: .seconds(5))
        }
        #expect(listener.acceptedCount == 1)
    }

    @Test func send_pooledConnectionTheServerClosedWhileIdle_isNotUsed() throws {
        let listener = try RawListener { peer, _ in
            if peer.readRequest() != nil { peer.write("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n") }
        }
        defer { listener.stop() }
        let client = HTTPClient()
        _ = try client.send(method: "POST", path: "/", to: endpoint(listener.port), timeout: .seconds(5))
        Thread.sleep(forTimeInterval: 0.1)
        // A POST is never retried, so this succeeds only because the closed connection was found out before use.
        #expect(try client.send(method: "POST", path: "/", to: endpoint(listener.port), timeout: .seconds(5)).status == 200)
        #expect(listener.acceptedCount == 2)
    }

    // MARK: - Misbehaving servers

    @Test func send_serverThatNeverAnswers_timesOutAtTheDeadline() throws {
        let listener = try RawListener { peer, _ in
            _ = peer.readRequest()
            Thread.sleep(forTimeInterval: 3)
        }
        defer { listener.stop() }
        let started = ContinuousClock.now
        #expect(throws: HTTPClientError.timedOut(.receive)) {
            try HTTPClient().send(method: "GET", path: "/", to: endpoint(listener.port), timeout: .milliseconds(300))
        }
        let waited = ContinuousClock.now - started
        #expect(waited >= .milliseconds(300) && waited < .seconds(2))
    }

    @Test func send_serverClosingMidBody_failsWithEndOfInput() throws {
        let listener = try RawListener { peer, _ in
            _ = peer.readRequest()
            peer.write("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly part")
        }
        defer { listener.stop() }
        #expect(throws: HTTPClientError.invalidResponse(.endOfInput(during: .body))) {
            try HTTPClient().send(method: "GET", path: "/", to: endpoint(listener.port), timeout: .seconds(5))
        }
    }

    @Test func send_serverSendingGarbage_failsAsInvalidResponse() throws {
        let listener = try RawListener { peer, _ in
            _ = peer.readRequest()
            peer.write("SSH-2.0-OpenSSH_9.6\r\n\r\n")
        }
        defer { listener.stop() }
        #expect(throws: HTTPClientError.invalidResponse(.malformedStatusLine)) {
            try HTTPClient().send(method: "GET", path: "/", to: endpoint(listener.port), timeout: .seconds(5))
        }
    }

    @Test func send_bodyUntilClose_isReadWholeAndNotPooled() throws {
        let listener = try RawListener { peer, _ in
            _ = peer.readRequest()
            peer.write("HTTP/1.1 200 OK\r\n\r\nall of it")
        }
        defer { listener.stop() }
        let client = HTTPClient()
        let response = try client.send(method: "GET", path: "/", to: endpoint(listener.port), timeout: .seconds(5))
        #expect(String(decoding: response.body, as: UTF8.self) == "all of it")
        #expect(client.idleConnectionCount(for: endpoint(listener.port)) == 0)
    }

    @Test func send_nobodyListening_failsWithConnectionRefused() throws {
        let listener = try RawListener { _, _ in }
        let port = listener.port
        listener.stop()
        #expect(throws: HTTPClientError.connectFailed(errno: ECONNREFUSED)) {
            try HTTPClient().send(method: "GET", path: "/", to: endpoint(port), timeout: .seconds(2))
        }
    }

    @Test(arguments: [("X-Bad", "a\r\nInjected: 1"), ("Bad Name", "x"), ("Content-Length", "5"), ("Transfer-Encoding", "chunked")])
    func send_headerThatWouldChangeFraming_isRefusedBeforeConnecting(name: String, value: String) {
        #expect(throws: HTTPClientError.invalidRequestHeader(name: name)) {
            try HTTPClient().send(method: "GET", path: "/", headers: [(name, value)], to: endpoint(1), timeout: .seconds(1))
        }
    }

    // MARK: - Streams

    @Test func stream_chunkedEvents_arriveAsTheyComeAndStopWhenTheCallerDeclines() throws {
        let listener = try RawListener { peer, _ in
            _ = peer.readRequest()
            peer.write("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
            for index in 0..<50 {
                let event = "data: \(index)\n\n"
                peer.write(String(event.utf8.count, radix: 16) + "\r\n" + event + "\r\n")
                Thread.sleep(forTimeInterval: 0.01)
            }
        }
        defer { listener.stop() }
        var status = 0
        var received = ""
        try HTTPClient().stream(
            method: "GET", path: "/v1/stream", to: endpoint(listener.port), connectTimeout: .seconds(5),
            onHead: { head in
                status = head.status
                return true
            },
            onBody: { part in
                received += String(decoding: part, as: UTF8.self)
                return !received.contains("data: 2\n\n")
            })
        #expect(status == 200)
        #expect(received.hasPrefix("data: 0\n\ndata: 1\n\ndata: 2\n\n"))
        #expect(!received.contains("data: 10"))
    }

    @Test func stream_silentPeerPastIdleTimeout_timesOut() throws {
        let listener = try RawListener { peer, _ in
            _ = peer.readRequest()
            peer.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
            Thread.sleep(forTimeInterval: 3)
        }
        defer { listener.stop() }
        #expect(throws: HTTPClientError.timedOut(.receive)) {
            try HTTPClient().stream(
                method: "GET", path: "/", to: endpoint(listener.port), connectTimeout: .seconds(5), idleTimeout: .milliseconds(200),
                onHead: { _ in true }, onBody: { _ in true })
        }
    }

    // MARK: - URLs

    @Test(arguments: [
        ("http://example.com/hook", "example.com", 80, "/hook"),
        ("http://127.0.0.1:9000/a/b?c=d", "127.0.0.1", 9000, "/a/b?c=d"),
        ("HTTP://Host.Example:8080", "host.example", 8080, "/"),
        ("http://h:1?q", "h", 1, "/?q")
    ])
    func endpoint_parse_validURL_givesHostPortAndTarget(url: String, host: String, port: Int, target: String) throws {
        let parsed = try HTTPClient.Endpoint.parse(url: url)
        #expect(parsed.endpoint == HTTPClient.Endpoint(host: host, port: port))
        #expect(parsed.target == target)
    }

    @Test(arguments: [
        ("https://example.com/x", HTTPClient.URLError.tlsNotSupported),
        ("ftp://example.com/x", .unsupportedScheme("ftp")),
        ("example.com/x", .missingScheme),
        ("http:///x", .invalidHost),
        ("http://user@host/x", .invalidHost),
        ("http://[::1]:80/x", .invalidHost),
        ("http://host:0/x", .invalidPort),
        ("http://host:65536/x", .invalidPort),
        ("http://host:/x", .invalidPort),
        ("http://host/x#frag", .invalidTarget),
        ("http://host/a b", .invalidTarget)
    ])
    func endpoint_parse_badURL_isRefusedWithItsReason(url: String, error: HTTPClient.URLError) {
        #expect(throws: error) { try HTTPClient.Endpoint.parse(url: url) }
    }

    @Test func endpoint_baseURLWithPath_isRefused() throws {
        #expect(throws: HTTPClient.URLError.unexpectedPath) { try HTTPClient.Endpoint(url: "http://a:1/x") }
        #expect(try HTTPClient.Endpoint(url: "http://a:1/") == HTTPClient.Endpoint(host: "a", port: 1))
    }
}
