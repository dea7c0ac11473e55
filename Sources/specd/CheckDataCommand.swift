import API
import Engine
import Foundation
import HTTPServer
import Store

/// `specd check-data [--data-dir DIR]`: the recovery checks, offline and read-only.
enum CheckDataCommand {
    static func run(arguments: [String], environment: [String: String]) -> Int32 {
        var directory = environment["SPECD_DATA_DIR"] ?? "./data"
        var index = 0
        while index < arguments.count {
            let (name, inline) = DaemonOptions.splitFlag(arguments[index])
            guard name == "--data-dir" else { return CommandLineInterface.usageFailure("unknown option '\(arguments[index])' for check-data") }
            if let inline {
                directory = inline
            } else {
                index += 1
                guard index < arguments.count else { return CommandLineInterface.usageFailure("option '--data-dir' needs a value") }
                directory = arguments[index]
            }
            index += 1
        }
        guard FileManager.default.fileExists(atPath: directory) else {
            print("\(directory): no data directory")
            return 1
        }
        var users = 0
        do {
            let report = try Recovery.run(
                directory: directory, fileSystem: PosixFileSystem(), repair: false,
                apply: { _ in }, loadSnapshot: { users = $0.reduce(0) { $0 + $1.count } })
            let base = report.snapshot.map { "snapshot \($0) (seq \(report.snapshotSeq), \(users) users)" } ?? "snapshot none"
            let summary = "\(base), \(report.replayedRecords) later records, last seq \(report.lastSeq)"
            guard report.damagedSnapshots.isEmpty else {
                // The data is whole, but a damaged snapshot is corruption all the same: say so, and what `serve`
                // would do about it.
                for damage in report.damagedSnapshots { print("error: damaged snapshot \(damage)") }
                for warning in report.warnings where !warning.hasPrefix("snapshot ") { print("warning: \(warning)") }
                print("\(directory): corrupt; serve would recover every record from \(summary) and replace the damaged snapshot at its next one")
                return 1
            }
            for warning in report.warnings { print("warning: \(warning)") }
            print("\(directory): ok; \(summary)")
            return 0
        } catch {
            print("error: \(error.description)")
            if case .corrupt = error { print("\(directory): corrupt; serve refuses to start (exit 2)") }
            return 1
        }
    }
}
