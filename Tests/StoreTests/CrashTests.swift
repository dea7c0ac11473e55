import Foundation
import Rules
import Store
import TestRandom
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// kill -9 at random moments — during recovery, writes, segment rotations, snapshots and compactions — while
/// several threads write: after every kill, everything acknowledged is there, no batch is half-applied, and seq
/// never goes backwards. `SPECD_CRASH_ROUNDS` sets the rounds (default 100); `scripts/crash.sh` runs 1 000.
@Suite(.serialized) struct CrashTests {
    static var writer: URL {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("store-crash-writer"),
            Bundle.main.bundleURL.appendingPathComponent("store-crash-writer"),
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../.build/debug/store-crash-writer").standardized
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[0]
    }

    static var rounds: Int { ProcessInfo.processInfo.environment["SPECD_CRASH_ROUNDS"].flatMap(Int.init) ?? 100 }

    /// One data directory per policy. `always` acknowledges after the fsync (the writer thread); `interval` once
    /// the caller's own write reached the file, which a killed process cannot take back.
    /// A third lineage runs `always` with the writers fsyncing their own records (`--log-commit loop`).
    final class Lineage {
        let policy: FsyncPolicy
        let writersCommit: Bool
        let directory = temporaryDirectory()
        var highest: [String: Int] = [:]
        var lastSeq: UInt64 = 0
        var acks = 0

        init(policy: FsyncPolicy, writersCommit: Bool = false) {
            self.policy = policy
            self.writersCommit = writersCommit
        }

        var name: String { policy.rawValue + (writersCommit ? " (writers commit)" : "") }
    }

    @Test func killNine_atRandomMoments_losesNothingAcknowledged() throws {
        let lineages = [Lineage(policy: .always), Lineage(policy: .interval), Lineage(policy: .always, writersCommit: true)]
        var random = SplitMix(seed: UInt64(Date().timeIntervalSince1970))
        var passed = 0
        var failed = 0
        for round in 0..<Self.rounds {
            let lineage = lineages[round % lineages.count]
            let issues = try crashRound(lineage, &random, label: "round \(round) (\(lineage.name))")
            for issue in issues { Issue.record(Comment(rawValue: issue)) }
            if issues.isEmpty { passed += 1 } else { failed += 1 }
        }
        let summary =
            "crash: \(passed) passed, \(failed) failed (\(lineages.map { "\($0.name): \($0.acks) acks, last seq \($0.lastSeq)" }.joined(separator: "; ")))"
        print(summary)
        if let report = ProcessInfo.processInfo.environment["SPECD_CRASH_REPORT"] {
            try "\(passed) \(failed)\n".write(toFile: report, atomically: true, encoding: .utf8)
        }
        #expect(lineages.allSatisfy { $0.acks > Self.rounds }, "too few writes were acknowledged to mean anything")
    }

    /// Starts the writer, kills it at a random moment, recovers, and returns what went wrong (nothing, we hope).
    func crashRound(_ lineage: Lineage, _ random: inout SplitMix, label: String) throws -> [String] {
        let output = temporaryDirectory() + "/out"
        _ = FileManager.default.createFile(atPath: output, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: (output as NSString).deletingLastPathComponent) }
        let process = Process()
        process.executableURL = Self.writer
        process.arguments = [lineage.directory, "3", lineage.policy.rawValue] + (lineage.writersCommit ? ["writers-commit"] : [])
        process.standardOutput = FileHandle(forWritingAtPath: output)
        process.standardError = FileHandle.nullDevice
        try process.run()
        // One round in eight is killed while it may still be recovering; the others after a random number of
        // milliseconds of writing.
        if random.next(upTo: 8) == 0 {
            usleep(UInt32(random.next(upTo: 15_000)))
        } else {
            let deadline = Date().addingTimeInterval(10)
            while Date() < deadline, !((try? String(contentsOfFile: output, encoding: .utf8))?.hasPrefix("ready") ?? false) { usleep(500) }
            usleep(UInt32(1_000 + random.next(upTo: 30_000)))
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        var issues: [String] = []
        if process.terminationReason != .uncaughtSignal { issues.append("\(label): the writer exited on its own with \(process.terminationStatus)") }
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        for line in text.split(separator: "\n") where line.hasPrefix("ack ") {
            let parts = line.split(separator: " ")
            guard parts.count == 3, let value = Int(parts[2]) else { continue }
            lineage.highest[String(parts[1]), default: 0] = max(lineage.highest[String(parts[1]), default: 0], value)
            lineage.acks += 1
        }
        let recovered: Database
        do {
            recovered = try Database(options: .init(directory: lineage.directory, fsync: .never))
        } catch {
            return issues + ["\(label): recovery refused: \(error)"]
        }
        defer { recovered.log.close() }
        for (user, acknowledged) in lineage.highest {
            let context = recovered.store.context(of: user)
            let value = context?.counters["n"] ?? 0
            if value < acknowledged { issues.append("\(label): \(user) acknowledged \(acknowledged), recovered \(value)") }
            if context?.attributes["n"] != .int(value) { issues.append("\(label): \(user) half-applied batch") }
        }
        if recovered.recovery.lastSeq < lineage.lastSeq {
            issues.append("\(label): seq went back from \(lineage.lastSeq) to \(recovered.recovery.lastSeq)")
        }
        lineage.lastSeq = recovered.recovery.lastSeq
        return issues
    }
}
