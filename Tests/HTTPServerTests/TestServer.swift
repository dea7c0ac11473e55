import Foundation
import HTTP
import NetworkFixtures
import Synchronization

@testable import HTTPServer

/// A responder that records what reached it and answers by path: `/slow` after a delay on another thread,
/// `/hold` after holding the thread that asked (the connection's loop) as long, `/echo` with the request body,
/// `/events` with an event stream the test writes to (`streams`), anything else with `{"ok":true}`.
final class RecordingResponder: Responder {
    let handled = Mutex<[String]>([])
    /// The streams `/events` opened, in order.
    let streams = Mutex<[EventStream]>([])
    let delay: Duration

    init(delay: Duration = .milliseconds(300)) {
        self.delay = delay
    }

    var count: Int { handled.withLock { $0.count } }
    var targets: [String] { handled.withLock { $0 } }

    func respond(to request: consuming Request, sink given: consuming ResponseSink) {
        // A constant: the slow answer's thread captures it.
        let sink = consume given
        handled.withLock { $0.append(request.head.target) }
        switch request.path {
        case "/slow":
            let delay = delay
            Thread.detachNewThread {
                Thread.sleep(forTimeInterval: Double(delay.millisecondsForTimers) / 1000)
                sink.send(.json(.ok, #"{"slow":true}"#))
            }
        case "/hold":
            // The loop reads nothing meanwhile: what the client sends waits in the socket.
            Thread.sleep(forTimeInterval: Double(delay.millisecondsForTimers) / 1000)
            sink.send(.json(.ok, #"{"held":true}"#))
        case "/events":
            if let stream = sink.stream(headers: ["Content-Type": "text/event-stream"]) { streams.withLock { $0.append(stream) } }
        case "/big":
            // Large enough to overflow the socket buffers, so the server must queue and resume on writability.
            let body = TestServer.bigBody
            sink.send(HTTPResponse(status: .ok, headers: ["Content-Type": "application/octet-stream"], body: body))
        case let path where path.hasPrefix("/kb/"):
            // 64 KiB naming its request, so a test can check pipelined answers arrive whole and in order.
            var body = Array(request.head.target.utf8)
            body += [UInt8](repeating: UInt8(ascii: "."), count: TestServer.kilobytes - body.count)
            sink.send(HTTPResponse(status: .ok, headers: ["Content-Type": "application/octet-stream"], body: body))
        case "/echo":
            sink.send(HTTPResponse(status: .ok, headers: ["Content-Type": "application/octet-stream"], body: request.body))
        default:
            sink.send(.json(.ok, #"{"ok":true}"#))
        }
    }
}

/// Keeps what the transport reported, requests included.
final class RecordingServerEvents: ServerEventSink {
    let events = Mutex<[ServerEvent]>([])
    var wantsRequests: Bool { true }
    func record(_ event: ServerEvent) { events.withLock { $0.append(event) } }
}

/// Starts an `HTTPServer` on an ephemeral loopback port for one test.
struct TestServer {
    static let bigBody: [UInt8] = (0..<(4 << 20)).map { UInt8(truncatingIfNeeded: $0 % 251) }
    static let kilobytes = 64 * 1024
    let server: HTTPServer
    let responder: RecordingResponder

    /// `slowDelay`: how long `/slow` takes to answer.
    init(
        kind: EventLoopKind = .epoll, slowDelay: Duration = .milliseconds(300), configure: (inout ServerConfiguration) -> Void = { _ in }
    ) throws {
        var configuration = ServerConfiguration(host: "127.0.0.1", port: 0, eventLoop: kind, loopCount: 2)
        configure(&configuration)
        responder = RecordingResponder(delay: slowDelay)
        server = HTTPServer(configuration: configuration, events: RecordingServerEvents())
        try server.start(serving: responder)
    }

    var port: Int { server.port }

    func client(timeout: Double = 5) throws -> TestClient { try TestClient(port: port, timeout: timeout) }

    func stop() { server.shutdown() }
}
