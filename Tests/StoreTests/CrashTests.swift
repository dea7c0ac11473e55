import Foundation
import Rules
import Store
import TestRandom
import Testing

/// kill -9 at random moments while several threads write with fsync=always: every acknowledged write is there
/// after restart, and no batch is half-applied.
@Suite(.serialized) struct CrashTests {
    static var writer: URL {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("store-crash-writer"),
            Bundle.main.bundleURL.appendingPathComponent("store-crash-writer"),
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../.build/debug/store-crash-writer").standardized,
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[0]
    }

    /// `always` acknowledges after fsync (the writer thread); `interval` once the caller's own write reached the
    /// file, which a killed process cannot take back.
    @Test(arguments: [FsyncPolicy.always, .interval])
    func killNine_atRandomMoments_losesNothingAcknowledged(policy: FsyncPolicy) throws {
        let directory = temporaryDirectory()
        var generator = SplitMix(seed: UInt64(Date().timeIntervalSince1970))
        var highest: [String: Int] = [:]
        var kills = 0
        var totalAcks = 0
        for _ in 0..<20 {
            let process = Process()
            process.executableURL = Self.writer
            process.arguments = [directory, "4", policy.rawValue]
            let stdout = Pipe()
            process.standardOutput = stdout
            try process.run()
            Thread.sleep(forTimeInterval: 0.15 + Double(generator.next(upTo: 300)) / 1000)
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            #expect(process.terminationReason == .uncaughtSignal, "the writer exited on its own: \(process.terminationStatus)")
            kills += 1
            let text = String(decoding: stdout.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            for line in text.split(separator: "\n") where line.hasPrefix("ack ") {
                let parts = line.split(separator: " ")
                guard parts.count == 3, let value = Int(parts[2]) else { continue }
                highest[String(parts[1]), default: 0] = max(highest[String(parts[1]), default: 0], value)
                totalAcks += 1
            }
            let recovered = try Database(options: .init(directory: directory, fsync: .never))
            for (user, acknowledged) in highest {
                let context = recovered.store.context(of: user)
                let value = context?.counters["n"] ?? 0
                #expect(value >= acknowledged, "\(user): acknowledged \(acknowledged), recovered \(value)")
                #expect(context?.attributes["n"] == .int(value), "\(user): half-applied batch")
            }
            recovered.log.close()
        }
        #expect(kills == 20)
        #expect(totalAcks > 100)
    }
}
