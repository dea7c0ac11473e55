import Foundation
import NetworkFixtures
import Testing

/// The real `specd` binary restarted from its snapshot: recovered users stay as their records until touched, and
/// `/metrics` says how many (`specd_users_encoded`), while every user still counts and reads as before.
@Suite(.serialized) struct EncodedUsersProcessTests {
    func request(_ port: Int, _ method: String, _ path: String) throws -> (status: Int, text: String) {
        let client = try TestClient(port: port)
        try client.send("\(method) \(path) HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n")
        let response = try client.readResponse()
        return (response.status, String(decoding: response.body, as: UTF8.self))
    }

    /// The value of an unlabelled sample on the metrics page.
    func gauge(_ name: String, port: Int) throws -> Double? {
        let page = try request(port, "GET", "/metrics").text
        for line in page.split(separator: "\n") where line.hasPrefix(name + " ") {
            return Double(line.dropFirst(name.count + 1))
        }
        return nil
    }

    @Test func afterACleanRestart_untouchedUsersAreCountedAsEncoded_untilRead() throws {
        let daemon = DaemonProcessTests()
        let dataDir = DaemonProcessTests.temporaryPath("data")
        defer { try? FileManager.default.removeItem(atPath: dataDir) }
        let first = try daemon.start([], dataDir: dataDir)
        do {
            defer {
                kill(first.process.processIdentifier, SIGTERM)
                first.process.waitUntilExit()
            }
            for user in ["u1", "u2", "u3"] { #expect(try request(first.port, "POST", "/v1/users/\(user)/events/appStarted").status == 200) }
            #expect(try gauge("specd_users_encoded", port: first.port) == 0)
        }

        let second = try daemon.start([], dataDir: dataDir)
        defer {
            kill(second.process.processIdentifier, SIGTERM)
            second.process.waitUntilExit()
        }
        #expect(try gauge("specd_users", port: second.port) == 3)
        #expect(try gauge("specd_users_encoded", port: second.port) == 3)
        let read = try request(second.port, "GET", "/v1/users/u2")
        #expect(read.status == 200 && read.text.contains("appStarted"))
        #expect(try gauge("specd_users_encoded", port: second.port) == 2)
        #expect(try gauge("specd_users", port: second.port) == 3)
    }
}
