import Foundation
import HTTP
import NetworkFixtures
import Rules
import Store
import StoreFixtures
import Synchronization

@testable import API
@testable import Engine
@testable import HTTPServer
@testable import specd

/// A clock the test moves by hand.
final class ManualClock: WallClock, @unchecked Sendable {
    private let current: Mutex<Instant>
    init(_ start: Instant) { current = Mutex(start) }
    func now() -> Instant { current.withLock { $0 } }
    func advance(_ milliseconds: Int64) { current.withLock { $0 = $0 + milliseconds } }
}

/// A transport that says what the test wants.
struct FixedServerStatus: ServerStatus {
    var isDraining = false
    var openConnections = 0
    var acceptPauses = 0
}

/// The daemon as `Daemon.assemble` builds it, on a real HTTP server on an ephemeral loopback port, with a
/// manual clock (the clock thread does not run: tests call `engine.runDue`) and a temp data directory.
final class APIHarness {
    let directory: String
    let clock: ManualClock
    let daemon: Daemon

    var database: Database { daemon.database }
    var server: HTTPServer { daemon.server }
    var engine: Engine { daemon.engine }
    var rules: RulesHost { daemon.engine.rules }
    var hub: StreamHub { daemon.hub }

    /// `rateLimit`: requests per second and burst per client (0: none).
    init(
        tokens: [Token] = [], directory: String? = nil, rulesText: String = DefaultRules.json, fsync: FsyncPolicy = .interval,
        fileSystem: FileSystem = PosixFileSystem(), rateLimit: (rate: Int, burst: Int) = (0, 0), hubOptions: StreamHub.Options = StreamHub.Options(),
        realClock: Bool = false, maxUsers: Int = 0, snapshotEvery: Int = 100_000,
        cors: CORSPolicy = .openFeatureOnly, answerCacheBytes: Int = AnswerCache.defaultCapacityBytes,
        configure: (inout ServerConfiguration) -> Void = { _ in }
    ) throws {
        let directory = directory ?? NSTemporaryDirectory() + "specd-api-\(UUID().uuidString)"
        self.directory = directory
        clock = ManualClock(ISO8601.parse("2026-03-10T12:00:00Z")!)
        var options = DaemonOptions()
        options.dataDirectory = directory
        options.fsync = fsync
        options.snapshotEvery = snapshotEvery
        options.maxUsers = maxUsers
        options.tokens = tokens
        options.rateLimit = rateLimit.rate
        options.rateBurst = rateLimit.burst
        options.streams = hubOptions
        options.logLevel = .error
        options.cors = cors
        options.answerCacheBytes = answerCacheBytes
        if rulesText != DefaultRules.json {
            let rulesPath = NSTemporaryDirectory() + "specd-rules-\(UUID().uuidString).json"
            try rulesText.write(toFile: rulesPath, atomically: true, encoding: .utf8)
            options.rulesPath = rulesPath
        }
        var configuration = ServerConfiguration(host: "127.0.0.1", port: 0, loopCount: 1)
        configure(&configuration)
        options.server = configuration
        do {
            daemon = try Daemon.assemble(options: options, logSink: MemoryLogSink(), clock: realClock ? SystemClock() : clock, fileSystem: fileSystem)
        } catch {
            throw TestClient.Failure(description: "assemble failed: \(error)")
        }
        try daemon.start(clockThread: realClock)
    }

    func stop() {
        daemon.stop()
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
