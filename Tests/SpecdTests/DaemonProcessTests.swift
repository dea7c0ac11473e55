import Foundation
import NetworkFixtures
import Rules
import Store
import Testing

/// Runs the real `specd` binary, as an operator would.
@Suite(.serialized) struct DaemonProcessTests {
    static var binary: URL {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("specd"),
            Bundle.main.bundleURL.appendingPathComponent("specd"),
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../.build/debug/specd").standardized
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[0]
    }

    struct Running {
        let process: Process
        let port: Int
        let stderr: Pipe
    }

    static func temporaryPath(_ name: String) -> String { NSTemporaryDirectory() + "specd-\(name)-\(UUID().uuidString)" }

    /// `openFiles`: the descriptor limit to start under (set by a shell's `ulimit`, then `exec`).
    func start(_ extra: [String] = [], dataDir: String = temporaryPath("data"), openFiles: Int? = nil) throws -> Running {
        let portFile = Self.temporaryPath("port")
        let process = Process()
        let arguments = ["serve", "--port", "0", "--port-file", portFile, "--data-dir", dataDir] + extra
        if let openFiles {
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "ulimit -n \(openFiles) && exec \"$0\" \"$@\"", Self.binary.path] + arguments
        } else {
            process.executableURL = Self.binary
            process.arguments = arguments
        }
        let stderr = Pipe()
        process.standardError = stderr
        try process.run()
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if let text = try? String(contentsOfFile: portFile, encoding: .utf8), let port = Int(text.trimmingCharacters(in: .whitespacesAndNewlines))
            {
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

    /// Pinned to one CPU (as `taskset -c 0` does), the daemon runs one loop and says why in its first line.
    /// One CPU also makes the loop commit its own rounds, whatever the fsync policy.
    @Test(arguments: [("always", "loop"), ("interval", "loop")])
    func pinnedToOneCPU_runsOneLoop_andLogsWhy(fsync: String, commit: String) throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/taskset") else { return }
        let portFile = Self.temporaryPath("port")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/taskset")
        process.arguments = [
            "-c", "0", Self.binary.path, "serve", "--port", "0", "--port-file", portFile, "--data-dir", Self.temporaryPath("data"),
            "--fsync", fsync
        ]
        let stderr = Pipe()
        process.standardError = stderr
        try process.run()
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline, (try? String(contentsOfFile: portFile, encoding: .utf8)) == nil { Thread.sleep(forTimeInterval: 0.02) }
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        let log = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let first = log.split(separator: "\n").first.map(String.init) ?? ""
        #expect(first.contains(#""loops":1,"#), "\(first)")
        #expect(first.contains(#""loopsFrom":"#))
        #expect(first.contains(#""idlePollMicroseconds":"#) && first.contains(#""idlePollFrom":"#), "\(first)")
        #expect(first.contains(#""logCommit":"\#(commit)""#), "\(first)")
        if ProcessInfo.processInfo.activeProcessorCount > 1 { #expect(first.contains("affinity 1 of")) }
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
            _ = try database.writeAndWait(
                Mutation(
                    user: "user-\(index)", now: Instant(milliseconds: 1_773_144_000_000),
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

    /// CPU seconds the process has used (user + system), from `/proc/PID/stat`.
    static func cpuSeconds(_ pid: Int32) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // After the command: state is field 3, utime 14 and stime 15 (proc(5)), so indexes 11 and 12 here.
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Out of descriptors, the level-triggered listener used to wake the loop again at once: a core spun at 100 %
    /// for as long as the connections stayed. Now accepting pauses, says so once, and resumes when one closes.
    @Test func outOfDescriptors_pausesAccepting_withoutSpinning_andServesAgainOnceOneFrees() throws {
        let running = try start(openFiles: 48)
        defer {
            running.process.terminate()
            running.process.waitUntilExit()
        }
        // More than the daemon has descriptors left for: the rest wait in the listen backlog.
        var clients = try (0..<80).map { _ in try TestClient(port: running.port, timeout: 2) }
        Thread.sleep(forTimeInterval: 0.3)
        let before = Self.cpuSeconds(running.process.processIdentifier)
        Thread.sleep(forTimeInterval: 1)
        let used = Self.cpuSeconds(running.process.processIdentifier) - before
        #expect(used < 0.3, "the daemon used \(used) s of CPU in 1 s while out of descriptors")
        clients.removeAll()
        let probe = try TestClient(port: running.port, timeout: 5)
        try probe.send("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(try probe.readResponse().status == 200)
        try probe.send("GET /metrics HTTP/1.1\r\nHost: t\r\n\r\n")
        let metrics = try probe.readResponse().bodyText
        let pauses = metrics.split(separator: "\n").first { $0.hasPrefix("specd_accept_pauses_total ") }
        #expect(pauses.flatMap { Double($0.split(separator: " ").last ?? "") }.map { $0 >= 1 } == true, "\(metrics)")
        running.process.terminate()
        running.process.waitUntilExit()
        let log = String(decoding: running.stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        // Said once per listener (one per loop), not once per pause.
        let said = log.components(separatedBy: "accepting paused").count - 1
        #expect(said >= 1 && said <= ProcessInfo.processInfo.activeProcessorCount, "\(log)")
        #expect(log.contains(#""msg":"the open-files limit is below --max-connections"#), "warned at start")
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
