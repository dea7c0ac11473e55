import Foundation
import NetworkFixtures
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Webhooks through the real binary: what a write enqueued survives kill -9 and is delivered by the next run.
@Suite(.serialized) struct WebhookProcessTests {
    static let secret = "0123456789abcdef-process"
    static let rules = #"{"flags": {}, "triggers": {"hello": {"on": ["ping"], "when": {"donations": {"event": "ping", "gte": 1}}}}}"#

    func config(receiverPort: Int) throws -> String {
        let rulesPath = DaemonProcessTests.temporaryPath("rules") + ".json"
        try Self.rules.write(toFile: rulesPath, atomically: true, encoding: .utf8)
        let path = DaemonProcessTests.temporaryPath("config") + ".json"
        let text = #"""
            {"rules": "\#(rulesPath)", "webhooks": [{"url": "http://127.0.0.1:\#(receiverPort)/hook", "events": ["trigger"], "secret": "\#(Self.secret)"}]}
            """#
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func donate(_ port: Int, user: String) throws -> Int {
        let client = try TestClient(port: port)
        try client.send("POST /v1/users/\(user)/events/ping HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n")
        return try client.readResponse().status
    }

    @Test func killedWithPendingDeliveries_nextRunDeliversThemInOrder() throws {
        let receiver = try WebhookReceiver()
        receiver.down()
        let dataDir = DaemonProcessTests.temporaryPath("data")
        let configPath = try config(receiverPort: receiver.port)
        let first = try DaemonProcessTests().start(["--config", configPath], dataDir: dataDir)
        for user in ["a", "b", "a"] { #expect(try donate(first.port, user: user) == 200) }
        kill(first.process.processIdentifier, SIGKILL)
        first.process.waitUntilExit()
        try receiver.up()
        defer { receiver.down() }
        let second = try DaemonProcessTests().start(["--config", configPath], dataDir: dataDir)
        defer {
            second.process.terminate()
            second.process.waitUntilExit()
        }
        let deadline = Date().addingTimeInterval(10)
        while receiver.delivered.count < 3, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        let delivered = receiver.delivered
        #expect(delivered.count == 3)
        let users = delivered.map { String(decoding: $0.body, as: UTF8.self) }.map { $0.contains(#""user":"a""#) ? "a" : "b" }
        #expect(users.filter { $0 == "a" }.count == 2)
        let ids = delivered.filter { String(decoding: $0.body, as: UTF8.self).contains(#""user":"a""#) }.compactMap {
            $0.header("X-Specd-Delivery").flatMap { Int($0) }
        }
        #expect(ids == ids.sorted())
    }
}
