import Foundation
import Rules
import Store

/// `specd-bench seed-data DIR USERS [TAIL]`: a data directory for a cold-start measurement — USERS typical contexts
/// in a verified snapshot, then TAIL donations left in the log after it for startup to replay (the state a daemon
/// killed between two snapshots leaves).
enum SeedData {
    static func main(_ arguments: [String]) -> Int32 {
        guard arguments.count >= 2, let users = Int(arguments[1]), users > 0 else {
            FileHandle.standardError.write(Data("usage: specd-bench seed-data DIR USERS [TAIL]\n".utf8))
            return 2
        }
        let tail = arguments.count > 2 ? Int(arguments[2]) ?? 0 : 0
        let directory = arguments[0]
        do {
            let database = try Database(options: .init(directory: directory, fsync: .never, snapshotEvery: Int.max))
            let start = Instant(milliseconds: 1_773_144_000_000)
            for index in 0..<users {
                _ = try database.store.apply(Mutation(user: "user-\(index)", now: start, actions: StoreBenchmark.typicalActions(index, start: start)))
            }
            try database.takeSnapshot()
            for index in 0..<tail {
                _ = try database.store.apply(
                    Mutation(
                        user: "user-\(index % users)", now: start + Int64(index),
                        actions: [.donate(event: "appStarted", at: start + Int64(index), appVersion: "1.2")]))
            }
            database.closeWithoutSnapshot()
            print("seeded \(directory): \(users) users in the snapshot, \(tail) records after it")
            return 0
        } catch {
            FileHandle.standardError.write(Data("seed-data: \(error)\n".utf8))
            return 1
        }
    }
}
