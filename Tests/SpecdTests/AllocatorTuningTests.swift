import Foundation
import Testing

@testable import specd

@Suite struct AllocatorTuningTests {
    @Test func noTunables_reexecutesWithTheCountAndTheMarker() {
        let changed = AllocatorTuning.environment(toReexecWith: ["PATH": "/bin"])
        #expect(changed == ["PATH": "/bin", "GLIBC_TUNABLES": "glibc.malloc.tcache_count=128", "SPECD_ALLOCATOR_TUNED": "1"])
    }

    @Test func otherTunables_areKept_andTheCountAppended() {
        let changed = AllocatorTuning.environment(toReexecWith: ["GLIBC_TUNABLES": "glibc.malloc.arena_max=2"])
        #expect(changed?["GLIBC_TUNABLES"] == "glibc.malloc.arena_max=2:glibc.malloc.tcache_count=128")
    }

    @Test func anOperatorsCount_wins() {
        #expect(AllocatorTuning.environment(toReexecWith: ["GLIBC_TUNABLES": "glibc.malloc.arena_max=2:glibc.malloc.tcache_count=16"]) == nil)
    }

    @Test(arguments: ["0", "off", "OFF", "false", "no"])
    func turnedOff_neverReexecutes(setting: String) {
        #expect(AllocatorTuning.environment(toReexecWith: ["SPECD_MALLOC_TUNING": setting]) == nil)
    }

    @Test func afterTheOneReexecution_theMarkerStopsAnother_evenWhenTheTunablesWereDropped() {
        #expect(AllocatorTuning.environment(toReexecWith: ["SPECD_ALLOCATOR_TUNED": "1"]) == nil)
    }

    @Test func tcacheCount_isReadFromAnyPositionAndNilWhenAbsentOrMalformed() {
        #expect(AllocatorTuning.tcacheCount(in: "glibc.malloc.tcache_count=64") == 64)
        #expect(AllocatorTuning.tcacheCount(in: "a=1:glibc.malloc.tcache_count=7:b=2") == 7)
        #expect(AllocatorTuning.tcacheCount(in: "glibc.malloc.tcache_count_x=7") == nil)
        #expect(AllocatorTuning.tcacheCount(in: "glibc.malloc.tcache_count") == nil)
        #expect(AllocatorTuning.tcacheCount(in: "") == nil)
    }

    @Test func onlyARunningDaemonIsTuned() {
        #expect(CommandLineInterface.runsDaemon([]))
        #expect(CommandLineInterface.runsDaemon(["--port", "0"]))
        #expect(CommandLineInterface.runsDaemon(["serve", "--fsync", "always"]))
        #expect(!CommandLineInterface.runsDaemon(["serve", "--help"]))
        #expect(!CommandLineInterface.runsDaemon(["-h"]))
        #expect(!CommandLineInterface.runsDaemon(["test", "specs"]))
        #expect(!CommandLineInterface.runsDaemon(["validate", "rules.json"]))
    }

    /// The real binary: the process (same pid) runs with the count in its environment and says so in its first line;
    /// turned off, it runs as started.
    @Test(arguments: [(nil as String?, "tcache_count=128"), ("0", "default")])
    func startedDaemon_runsWithTheCount_unlessTurnedOff(optOut: String?, expected: String) throws {
        let portFile = DaemonProcessTests.temporaryPath("port")
        let process = Process()
        process.executableURL = DaemonProcessTests.binary
        process.arguments = ["serve", "--port", "0", "--port-file", portFile, "--data-dir", DaemonProcessTests.temporaryPath("data")]
        var environment = ProcessInfo.processInfo.environment
        environment["GLIBC_TUNABLES"] = nil
        environment["SPECD_ALLOCATOR_TUNED"] = nil
        environment["SPECD_MALLOC_TUNING"] = optOut
        process.environment = environment
        let stderr = Pipe()
        process.standardError = stderr
        try process.run()
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline, (try? String(contentsOfFile: portFile, encoding: .utf8)) == nil { Thread.sleep(forTimeInterval: 0.02) }
        let environ = (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(process.processIdentifier)/environ"))) ?? Data()
        let entries = environ.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        let log = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let first = log.split(separator: "\n").first.map(String.init) ?? ""
        #expect(first.contains(#""allocator":"\#(expected)""#), "\(first)")
        #expect(entries.contains("GLIBC_TUNABLES=glibc.malloc.tcache_count=128") == (optOut == nil), "\(entries)")
        #expect(process.terminationStatus == 0)
    }
}
