import Foundation
import Rules
import Store
import Testing

/// Runs the real `specd` binary, as an operator would.
@Suite(.serialized) struct DaemonProcessTests {
    static var binary: URL {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("specd"),
            Bundle.main.bundleURL.appendingPathComponent("specd"),
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../.build/debug/specd").standardized,
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[0]
    }

    struct Running {
        let process: Process
        let port: Int
        let stderr: Pipe
    }

    static func temporaryPath(_ name: String) -> String { NSTemporaryDirectory() + "specd-\(name)-\(UUID().uuidString)" }

    func start(_ extra: [String] = [], dataDir: String = temporaryPath("data")) throws -> Running {
        let portFile = Self.temporaryPath("port")
        let process = Process()
        process.executableURL = Self.binary
        process.arguments = ["serve", "--port", "0", "--port-file", portFile, "--data-dir", dataDir] + extra
        let stderr = Pipe()
        process.standardError = stderr
        try process.run()
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if let text = try? String(contentsOfFile: portFile, encoding: .utf8), let port = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) {
                return Running(process: process, port: port, stderr: stderr)
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
        process.terminate()
        throw TestClient.Failure(description: "specd did not write its port file")
    }

    @Test func sigterm_drainsClosesIdleConnectionsAndExitsZero() throws {
        let running = try start()
        let idle = try TestClient(port: running.port)
        try idle.send("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(try idle.readResponse().status == 200)
        let started = Date()
        kill(running.process.processIdentifier, SIGTERM)
        #expect(idle.isClosedByServer())
        running.process.waitUntilExit()
        #expect(running.process.terminationStatus == 0)
        #expect(Date().timeIntervalSince(started) < 10)
        let log = String(decoding: running.stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let first = log.split(separator: "\n").first.map(String.init) ?? ""
        #expect(first.contains(#""msg":"listening""#))
        #expect(first.contains(#""address":"127.0.0.1:\#(running.port)""#))
        #expect(log.contains(#""msg":"stopped""#))
        #expect(log.contains(#""msg":"data flushed""#))
    }

    func runToExit(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = Self.binary
        process.arguments = arguments
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        let out = stdout.fileHandleForReading.readDataToEndOfFile()
        let err = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
    }

    @Test func corruptDataDirectory_refusesToStartWithExitTwo_andCheckDataNamesTheOffset() throws {
        let dataDir = Self.temporaryPath("data")
        let running = try start(dataDir: dataDir)
        kill(running.process.processIdentifier, SIGTERM)
        running.process.waitUntilExit()
        // Two records, the first damaged: not a torn tail.
        let segment = dataDir + "/segment-00000000000000000001.log"
        var bytes: [UInt8] = []
        for seq in 1...2 as ClosedRange<UInt64> {
            var payload: [UInt8] = [1, 0x75, 0, 1, 18]
            payload[0] = 1
            bytes += RecordBuilder.record(seq: seq, payload: payload)
        }
        bytes[20] ^= 0x01
        try Data(bytes).write(to: URL(fileURLWithPath: segment))
        let check = try runToExit(["check-data", "--data-dir", dataDir])
        #expect(check.status == 1)
        #expect(check.stdout.contains("segment-00000000000000000001.log at byte 0"))
        let serve = try runToExit(["serve", "--port", "0", "--data-dir", dataDir])
        #expect(serve.status == 2)
        #expect(serve.stderr.contains("refusing to start"))
    }

    /// A data directory after a clean stop (everything in the newest snapshot), with one byte of that snapshot
    /// flipped. Returns the directory and the snapshot's path.
    func dataDirectoryWithDamagedSnapshot(keepLog: Bool) throws -> (String, String) {
        let dataDir = Self.temporaryPath("data")
        let database = try Database(options: .init(directory: dataDir, fsync: .never))
        for index in 0..<10 {
            _ = try database.writeAndWait(Mutation(user: "user-\(index)", now: Instant(milliseconds: 1_773_144_000_000),
                                                   actions: [.setCounter(counter: "k", value: index)]))
            if index == 4 { try database.takeSnapshot() }
        }
        try database.close()
        let names = try FileManager.default.contentsOfDirectory(atPath: dataDir).sorted()
        let snapshot = dataDir + "/" + (try #require(names.last { $0.hasPrefix("snapshot-") }))
        if !keepLog {
            for name in names.filter({ $0.hasPrefix("segment-") }).dropLast() { try FileManager.default.removeItem(atPath: dataDir + "/" + name) }
            for name in names.filter({ $0.hasPrefix("snapshot-") }).dropLast() { try FileManager.default.removeItem(atPath: dataDir + "/" + name) }
        }
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: snapshot)))
        bytes[bytes.count / 2] ^= 0x10
        try Data(bytes).write(to: URL(fileURLWithPath: snapshot))
        return (dataDir, snapshot)
    }

    /// No way back past the damaged snapshot: exit 2 naming the snapshot and the offset, never an empty start.
    @Test func damagedSnapshotWithoutAWayBack_refusesWithExitTwoNamingTheSnapshot() throws {
        let (dataDir, snapshot) = try dataDirectoryWithDamagedSnapshot(keepLog: false)
        let serve = try runToExit(["serve", "--port", "0", "--data-dir", dataDir])
        #expect(serve.status == 2)
        #expect(serve.stderr.contains("refusing to start"))
        #expect(serve.stderr.contains((snapshot as NSString).lastPathComponent + " at byte "), "\(serve.stderr)")
        let check = try runToExit(["check-data", "--data-dir", dataDir])
        #expect(check.status == 1)
        #expect(check.stdout.contains((snapshot as NSString).lastPathComponent + " at byte "), "\(check.stdout)")
        #expect(check.stdout.contains("refuses to start"))
    }

    /// The previous snapshot and its segments are whole: serve starts with every user (and a warning naming the
    /// damaged file); check-data still reports the corruption, exit 1, and says what recovery does.
    @Test func damagedSnapshotWithAWayBack_servesEveryUser_andCheckDataReportsIt() throws {
        let (dataDir, snapshot) = try dataDirectoryWithDamagedSnapshot(keepLog: true)
        let check = try runToExit(["check-data", "--data-dir", dataDir])
        #expect(check.status == 1)
        #expect(check.stdout.contains("damaged snapshot \(snapshot) at byte "), "\(check.stdout)")
        #expect(check.stdout.contains("serve would recover every record"), "\(check.stdout)")
        #expect(check.stdout.contains("last seq 10"), "\(check.stdout)")
        let running = try start(dataDir: dataDir)
        let client = try TestClient(port: running.port)
        try client.send("GET /v1/users/user-9 HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(try client.readResponse().status == 200)
        kill(running.process.processIdentifier, SIGTERM)
        running.process.waitUntilExit()
        #expect(running.process.terminationStatus == 0)
        let log = String(decoding: running.stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(log.contains((snapshot as NSString).lastPathComponent), "\(log)")
        #expect(log.contains(#""users":10"#), "\(log)")
        // The clean stop replaced the damaged snapshot with a good one.
        #expect(try runToExit(["check-data", "--data-dir", dataDir]).status == 0)
    }

    @Test func unknownFlag_exitsOneWithAClearMessage() throws {
        let result = try runToExit(["--frobnicate"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("unknown option '--frobnicate'"))
    }

    @Test func version_printsAndExitsZero() throws {
        let result = try runToExit(["version"])
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("specd "))
    }
}
