import Foundation
import HTTP
import Rules
@testable import Server
import Store
import StoreFixtures
import Synchronization

/// A clock the test moves by hand.
final class ManualClock: WallClock, @unchecked Sendable {
    private let current: Mutex<Instant>
    init(_ start: Instant) { current = Mutex(start) }
    func now() -> Instant { current.withLock { $0 } }
    func advance(_ milliseconds: Int64) { current.withLock { $0 = $0 + milliseconds } }
}

/// The API on a real HTTP server on an ephemeral loopback port, with a manual clock and a temp data directory.
final class APIHarness {
    let directory: String
    let clock: ManualClock
    let database: Database
    let server: HTTPServer
    let rules: LiveRules
    let tokens: [Token]
    let hub: StreamHub
    let live: LiveUpdates

    init(tokens: [Token] = [], directory: String? = nil, rulesText: String = DefaultRules.json, fsync: FsyncPolicy = .interval,
         fileSystem: FileSystem = PosixFileSystem(), rateLimiter: RateLimiter? = nil, hubOptions: StreamHub.Options = StreamHub.Options(),
         realClock: Bool = false, maxUsers: Int = 0, snapshotEvery: Int = 100_000, configure: (inout ServerConfiguration) -> Void = { _ in }) throws {
        self.directory = directory ?? NSTemporaryDirectory() + "specd-api-\(UUID().uuidString)"
        self.tokens = tokens
        clock = ManualClock(ISO8601.parse("2026-03-10T12:00:00Z")!)
        database = try Database(options: .init(directory: self.directory, fsync: fsync, snapshotEvery: snapshotEvery, maxUsers: maxUsers), fileSystem: fileSystem)
        rules = LiveRules(try RuleSetLoader.load(text: rulesText).get(), source: "test")
        let box = ServerBox()
        var api = API(rules: rules, database: database, clock: realClock ? SystemClock() : clock, metrics: Metrics(), logger: Logger(level: .error, sink: MemoryLogSink()),
                      authenticator: Authenticator(tokens: tokens), rulesPath: nil,
                      isDraining: { box.server?.isDraining ?? false }, openConnections: { box.server?.openConnections ?? 0 })
        api.rateLimiter = rateLimiter
        hub = StreamHub(options: hubOptions, startSeq: database.log.lastSeq)
        live = LiveUpdates(hub: hub, rules: rules, database: database, clock: realClock ? SystemClock() : clock,
                           logger: Logger(level: .error, sink: MemoryLogSink()))
        if realClock { live.start() }
        api.hub = hub
        api.live = live
        var configuration = ServerConfiguration(host: "127.0.0.1", port: 0, loopCount: 1)
        configure(&configuration)
        server = HTTPServer(configuration: configuration, responder: api.makeRouter(),
                            logger: Logger(level: .error, sink: MemoryLogSink()))
        box.server = server
        server.batchLogWrites(of: database)
        try server.start()
    }

    func stop() {
        live.stop()
        server.shutdown()
        database.log.close()
    }

    struct Reply {
        let status: Int
        let headers: [(String, String)]
        let body: JSONValue?
        let text: String

        func header(_ name: String) -> String? { headers.first { $0.0.lowercased() == name.lowercased() }?.1 }
        var errorCode: String? { body?["error"]?["code"]?.stringValue }
        var errorField: String? { body?["error"]?["field"]?.stringValue }
    }

    /// Opens a stream and returns the client after the head and the `connected` prelude.
    func stream(_ path: String, headers: [String: String] = [:], receiveBuffer: Int32? = nil) throws -> TestClient {
        let client = try TestClient(port: server.port, receiveBuffer: receiveBuffer)
        var head = "GET \(path) HTTP/1.1\r\nHost: t\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        try client.send(head + "\r\n")
        let response = try client.readHead()
        guard response.status == 200 else { throw TestClient.Failure(description: "stream answered \(response.status)") }
        _ = try client.readEvents(1)
        return client
    }

    func call(_ method: String, _ path: String, json: String? = nil, headers: [String: String] = [:]) throws -> Reply {
        let client = try TestClient(port: server.port)
        var head = "\(method) \(path) HTTP/1.1\r\nHost: t\r\n"
        var extra = headers
        if json != nil, extra["Content-Type"] == nil { extra["Content-Type"] = "application/json" }
        for (name, value) in extra { head += "\(name): \(value)\r\n" }
        let body = Array((json ?? "").utf8)
        if json != nil { head += "Content-Length: \(body.count)\r\n" }
        try client.send(Array((head + "\r\n").utf8) + body)
        let response = try client.readResponse(isHead: method == "HEAD")
        let parsed = response.body.isEmpty ? nil : try? JSONParser().parse(response.body)
        return Reply(status: response.status, headers: response.headers, body: parsed, text: response.bodyText)
    }
}
