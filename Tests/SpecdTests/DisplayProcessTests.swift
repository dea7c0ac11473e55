import Foundation
import NetworkFixtures
import Rules
import Testing

/// The real `specd` binary with the embedded example rules: display state survives a kill -9 (replayed from the log)
/// and a clean stop (from the snapshot).
@Suite(.serialized) struct DisplayProcessTests {
    func request(_ port: Int, _ method: String, _ path: String, _ body: String? = nil) throws -> (status: Int, json: JSONValue?) {
        let client = try TestClient(port: port)
        var head = "\(method) \(path) HTTP/1.1\r\nHost: t\r\n"
        if let body { head += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n" }
        try client.send(head + "\r\n" + (body ?? ""))
        let response = try client.readResponse()
        return (response.status, try? JSONParser().parse(response.body))
    }

    @Test(arguments: [SIGKILL, SIGTERM]) func displayState_survivesARestart(signal: Int32) throws {
        let daemon = DaemonProcessTests()
        let dataDir = DaemonProcessTests.temporaryPath("data")
        let first = try daemon.start(["--fsync", "always"], dataDir: dataDir)
        let path = "/v1/users/alice/flags/tip-search/display"
        #expect(try request(first.port, "POST", path, #"{"event": "shown", "at": "2026-03-02T09:00:00Z"}"#).status == 200)
        let acted = try request(first.port, "POST", path, #"{"event": "actionPerformed", "at": "2026-03-02T10:00:00Z"}"#)
        #expect(acted.json?["flag"]?["reason"] == "INVALIDATED")
        let before = try request(first.port, "GET", "/v1/users/alice").json?["display"]
        kill(first.process.processIdentifier, signal)
        first.process.waitUntilExit()
        let second = try daemon.start([], dataDir: dataDir)
        defer {
            kill(second.process.processIdentifier, SIGTERM)
            second.process.waitUntilExit()
        }
        let after = try request(second.port, "GET", "/v1/users/alice").json?["display"]
        #expect(after != nil)
        #expect(after == before)
        #expect(after?["tip-search"]?["invalidated"]?["reason"] == "actionPerformed")
        #expect(try request(second.port, "GET", "/v1/users/alice/flags/tip-search").json?["reason"] == "INVALIDATED")
    }

    /// `--log-commit loop` under `always`: each loop writes and fsyncs its own round, and what it acknowledged
    /// survives a kill -9 as it does with the writer thread.
    @Test func loopCommit_underAlways_acknowledgedDonationsSurviveAKill() throws {
        let daemon = DaemonProcessTests()
        let dataDir = DaemonProcessTests.temporaryPath("data")
        let first = try daemon.start(["--fsync", "always", "--log-commit", "loop"], dataDir: dataDir)
        var seqs: [Int] = []
        for index in 0..<20 {
            let answer = try request(first.port, "POST", "/v1/users/u\(index % 3)/events/appStarted")
            #expect(answer.status == 200)
            if let seq = answer.json?["seq"]?.numberValue?.int { seqs.append(seq) }
            // The flag diff is computed while the round's fsync is out: a user's first start still reports the
            // tour it opens, and later starts do not.
            let changed = answer.json?["changed"]?.arrayValue?.compactMap { $0["key"]?.stringValue } ?? []
            #expect(changed.contains("first-week-tour") == (index < 3), "\(index): \(changed)")
        }
        #expect(seqs == Array(seqs.sorted()) && seqs.count == 20)
        kill(first.process.processIdentifier, SIGKILL)
        first.process.waitUntilExit()
        let second = try daemon.start([], dataDir: dataDir)
        defer {
            kill(second.process.processIdentifier, SIGTERM)
            second.process.waitUntilExit()
        }
        let counts = try (0..<3).map { user in
            try request(second.port, "GET", "/v1/users/u\(user)").json?["donations"]?["appStarted"]?["count"]?.numberValue?.int
        }
        #expect(counts == [7, 7, 6])
    }
}
