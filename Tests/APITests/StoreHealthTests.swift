import Foundation
import HTTP
import Rules
import Store
import StoreFixtures
import Testing

@testable import API
@testable import Engine
@testable import HTTPServer
@testable import specd

/// What the store's state means for the API: readiness after a storage failure, and the user cap.
@Suite(.serialized) struct StoreHealthTests {
    /// After a failed write every write is 503, so a load balancer must stop sending traffic: /readyz says 503 with
    /// the reason; /healthz stays 200, since reads are still served and a restart is the operator's call.
    @Test func storageFailure_makesReadyz503WithTheReason_whileHealthzAndReadsStay200() throws {
        let probe = FaultyFileSystem()
        _ = try Database(options: .init(directory: NSTemporaryDirectory() + "specd-probe-\(UUID().uuidString)", fsync: .always), fileSystem: probe)
        let api = try APIHarness(fsync: .always, fileSystem: FaultyFileSystem(failAt: probe.calls + 1, fault: .error(EIO)))
        defer { api.stop() }
        #expect(try api.call("GET", "/readyz").status == 200)
        #expect(try api.call("POST", "/v1/users/u1/events/appStarted").status == 503)
        let ready = try api.call("GET", "/readyz")
        #expect(ready.status == 503)
        #expect(ready.errorCode == "storage_failed")
        #expect(ready.body?["error"]?["retryable"] == true)
        #expect(ready.body?["error"]?["message"]?.stringValue?.contains("restart") == true)
        #expect(Int(ready.header("Retry-After") ?? "") ?? 0 >= 1)
        #expect(try api.call("GET", "/healthz").status == 200)
        #expect(try api.call("GET", "/v1/users/u1/flags").status == 200)
    }

    /// A snapshot that cannot be written does not stop writes, but it is counted where monitoring looks.
    @Test func snapshotFailure_isCountedInMetrics_whileWritesGoOn() throws {
        let full = FaultyFileSystem(fault: .error(ENOSPC)) { _, path in path.contains("snapshot-") }
        let api = try APIHarness(fsync: .always, fileSystem: full, snapshotEvery: 2)
        defer { api.stop() }
        #expect(try api.call("GET", "/metrics").text.contains("specd_snapshot_failures_total 0"))
        for _ in 0..<3 { #expect(try api.call("POST", "/v1/users/u1/events/appStarted").status == 200) }
        api.database.waitForSnapshot()
        let metrics = try api.call("GET", "/metrics").text
        #expect(metrics.contains("# TYPE specd_snapshot_failures_total counter"))
        #expect(metrics.contains("specd_snapshot_failures_total 1"))
        #expect(try api.call("GET", "/readyz").status == 200)
    }

    /// The daemon logs a failed snapshot as an error naming the file and the errno, and at shutdown says that the
    /// final snapshot failed rather than "data flushed".
    @Test func snapshotFailure_isLoggedWithPathAndErrno_andShutdownSaysNoSnapshot() throws {
        let directory = NSTemporaryDirectory() + "specd-daemon-\(UUID().uuidString)"
        // A directory where the snapshot's temporary file must go: opening it for writing fails with EISDIR.
        for seq in [1, 2] {
            try FileManager.default.createDirectory(
                atPath: directory + "/snapshot-" + String(format: "%020d", seq) + ".snap.tmp",
                withIntermediateDirectories: true)
        }
        var options = DaemonOptions()
        options.dataDirectory = directory
        options.snapshotEvery = 1
        options.fsync = .always
        let sink = MemoryLogSink()
        let daemon = try Daemon.assemble(options: options, logSink: sink)
        _ = try daemon.database.writeAndWait(Mutation(user: "u1", now: Instant(milliseconds: 0), actions: [.toggleFlag(flag: "f")]))
        daemon.database.waitForSnapshot()
        let failure = sink.lines.first { $0.contains("snapshot failed") }
        #expect(failure?.contains(#""level":"error""#) == true)
        #expect(failure?.contains(#""errno":\#(EISDIR)"#) == true)
        #expect(failure?.contains(directory) == true)
        #expect(failure?.contains(#""failures":1"#) == true)
        daemon.closeDatabase()
        #expect(!sink.lines.contains { $0.contains("data flushed") })
        #expect(sink.lines.contains { $0.contains("final snapshot failed") && $0.contains(#""errno":\#(EISDIR)"#) })
    }

    /// Over `limits.maxUsers`, a write that would create a user is 507 `capacity`; existing users keep working,
    /// and erasing one makes room again.
    @Test func maxUsers_refusesNewUsersWith507_existingUsersKeepWriting() throws {
        let api = try APIHarness(maxUsers: 3)
        defer { api.stop() }
        for user in ["a", "b", "c"] { #expect(try api.call("POST", "/v1/users/\(user)/events/appStarted").status == 200) }
        let refused = try api.call("POST", "/v1/users/d/events/appStarted")
        #expect(refused.status == 507)
        #expect(refused.errorCode == "capacity")
        #expect(refused.body?["error"]?["retryable"] == true)
        #expect(refused.body?["error"]?["message"]?.stringValue?.contains("maxUsers") == true)
        #expect(try api.call("PATCH", "/v1/users/e/context", json: #"{"ops": [{"op": "toggleFlag", "flag": "f"}]}"#).status == 507)
        #expect(try api.call("GET", "/v1/users/d").status == 404)
        #expect(try api.call("POST", "/v1/users/a/events/appStarted").status == 200)
        #expect(try api.call("PATCH", "/v1/users/b/context", json: #"{"ops": [{"op": "toggleFlag", "flag": "f"}]}"#).status == 200)
        #expect(try api.call("DELETE", "/v1/users/c").status < 300)
        #expect(try api.call("POST", "/v1/users/d/events/appStarted").status == 200)
        #expect(api.database.store.userCount == 3)
    }

    @Test func maxUsers_isReadFromTheConfigFileLimits() throws {
        let path = NSTemporaryDirectory() + "specd-config-\(UUID().uuidString).json"
        try #"{"limits": {"maxUsers": 1000}}"#.write(toFile: path, atomically: true, encoding: .utf8)
        #expect(try DaemonOptions.resolve(arguments: ["--config", path], environment: [:]).maxUsers == 1000)
        #expect(try DaemonOptions.resolve(arguments: [], environment: [:]).maxUsers == 0)
    }
}
