import Foundation
import Rules
import Store
import StoreFixtures
import Synchronization
import TestRandom
import Testing

/// Power cuts at random moments of random workloads — writes, erases, snapshots, segment rotation, clean
/// restarts, and recovery itself — on a file system that loses whatever was not fsynced. Under `--fsync always`
/// every acknowledged write survives, and the only write that may go either way is the one in flight at the cut:
/// recovery gives back exactly that, never less, and never refuses a disk that only lost power.
@Suite(.serialized) struct PowerCutTests {
    static let directory = "/data"

    /// Ids include canonically equivalent pairs: they must stay two users through every cut.
    static let users = ["a", "b", "c", "d", "caf\u{E9}", "cafe\u{301}", "\u{C5}", "A\u{30A}"]

    /// What one user must be after recovery: its last acknowledged version (`nil` once erased).
    typealias Expected = [ByteKey: Int]

    struct InFlight {
        let user: ByteKey
        let version: Int?
    }

    static var iterations: Int { ProcessInfo.processInfo.environment["SPECD_POWERCUT_ITERATIONS"].flatMap(Int.init) ?? 100 }

    /// One to three writer threads, each with its own users (so each has at most one write in flight at the cut),
    /// sharing group commits.
    @Test func powerCut_atRandomMoments_keepsEveryAcknowledgedWrite() throws {
        var totals = (cuts: 0, acknowledged: 0, inFlightKept: 0, inFlightLost: 0)
        for iteration in 0..<Self.iterations {
            let seed = 0xC0FFEE &+ UInt64(iteration) &* 7919
            var random = SplitMix(seed: seed)
            var fileSystem = PowerCutFileSystem(seed: seed)
            var expected: Expected = [:]
            var version = 0
            for generation in 0..<4 {
                var options = Database.Options(
                    directory: Self.directory, fsync: .always, snapshotEvery: 3 + random.next(upTo: 25),
                    shardCount: 1 + random.next(upTo: 4), segmentLimit: 128 + random.next(upTo: 2048))
                // Half the generations with the writers fsyncing their own records (`--log-commit loop`).
                options.writersCommit = random.next(upTo: 2) == 0
                fileSystem.cut(afterCalls: 1 + random.next(upTo: 260))
                let threads = 1 + random.next(upTo: 3)
                var inFlight: [InFlight] = []
                if let database = try? Database(options: options, fileSystem: fileSystem) {
                    let outcomes = Mutex<[(users: [String], expected: Expected, inFlight: InFlight?, acknowledged: Int)]>([])
                    let group = DispatchGroup()
                    for thread in 0..<threads {
                        let users = Self.users.enumerated().filter { $0.offset % threads == thread }.map(\.element)
                        let keys = Set(users.map { ByteKey($0) })
                        let start = expected.filter { keys.contains($0.key) }
                        let threadSeed = seed &+ UInt64(generation * 16 + thread)
                        let base = version + thread * 10_000
                        group.enter()
                        Thread.detachNewThread {
                            var threadRandom = SplitMix(seed: threadSeed)
                            var mine = start
                            var acknowledged = 0
                            var threadVersion = base
                            let flying = workload(database, users: users, snapshots: thread == 0, &threadRandom, &mine, &threadVersion, &acknowledged)
                            outcomes.withLock { $0.append((users, mine, flying, acknowledged)) }
                            group.leave()
                        }
                    }
                    group.wait()
                    version += threads * 10_000
                    for outcome in outcomes.withLock({ $0 }) {
                        for user in outcome.users { expected[ByteKey(user)] = outcome.expected[ByteKey(user)] }
                        if let flying = outcome.inFlight { inFlight.append(flying) }
                        totals.acknowledged += outcome.acknowledged
                    }
                    if inFlight.isEmpty, random.next(upTo: 3) == 0 { try? database.close() } else { database.log.close() }
                }
                totals.cuts += 1
                fileSystem = fileSystem.afterCut(seed: seed &+ UInt64(generation) &+ 1)
                // The next boot: recovery must succeed and hold exactly what was acknowledged, plus or minus each
                // write that was in flight.
                let label = "seed \(seed) generation \(generation)"
                let recovered: Database
                do {
                    recovered = try Database(options: options, fileSystem: fileSystem)
                } catch {
                    Issue.record("\(label): recovery refused a disk that only lost power: \(error)")
                    return
                }
                let actual = recovered.store.allUsers.mapValues { $0.counters["n"] ?? -1 }
                var consistent = true
                for user in Set(actual.keys).union(expected.keys) {
                    var allowed: [Int?] = [expected[user]]
                    for flying in inFlight where flying.user == user { allowed.append(flying.version) }
                    if !allowed.contains(actual[user]) {
                        consistent = false
                        Issue.record(
                            "\(label): \(user) recovered as \(String(describing: actual[user])), acknowledged \(String(describing: expected[user])), in flight \(inFlight)"
                        )
                    }
                }
                for flying in inFlight {
                    if actual[flying.user] != expected[flying.user] { totals.inFlightKept += 1 } else { totals.inFlightLost += 1 }
                }
                for (user, context) in recovered.store.allUsers {
                    #expect(context.attributes["n"] == context.counters["n"].map { .int($0) }, "\(label): \(user) half-applied")
                }
                guard consistent else { return }
                expected = actual
                recovered.log.close()
                // The recovered disk, as it now stands, is what the next generation starts from.
                fileSystem = fileSystem.afterCut(seed: seed &+ 1000 &+ UInt64(generation))
            }
        }
        #expect(totals.acknowledged > Self.iterations * 20)
        #expect(totals.inFlightKept > 0)
        #expect(totals.inFlightLost > 0)
        print(
            "power cut: \(totals.cuts) cuts, \(totals.acknowledged) acknowledged writes kept, writes in flight at the cut kept \(totals.inFlightKept) / lost \(totals.inFlightLost)"
        )
    }

    /// Writes (and erases, and snapshots) until a write fails at the cut. Returns the write in flight then.
    func workload(
        _ database: Database, users: [String], snapshots: Bool, _ random: inout SplitMix, _ expected: inout Expected,
        _ version: inout Int, _ acknowledged: inout Int
    ) -> InFlight? {
        for _ in 0..<120 {
            let user = users[random.next(upTo: users.count)]
            let key = ByteKey(user)
            let roll = random.next(upTo: 20)
            if roll == 0 {
                guard snapshots else { continue }
                do {
                    try database.takeSnapshot()
                } catch {
                    // A failed snapshot loses nothing: the log still holds every record.
                    if database.log.failed != nil { return nil }
                }
                continue
            }
            version += 1
            let erase = roll == 1 && expected[key] != nil
            let batch =
                erase
                ? mutation(user, .erase)
                : mutation(user, .setCounter(counter: "n", value: version), .setAttribute(key: "n", value: .int(version)))
            do {
                _ = try database.writeAndWait(batch)
                expected[key] = erase ? nil : version
                acknowledged += 1
            } catch {
                return InFlight(user: key, version: erase ? nil : version)
            }
        }
        return nil
    }

    /// The model itself: fsynced data and directory entries survive a cut, unsynced ones may not.
    @Test func model_keepsSyncedDataAndMayLoseTheRest() throws {
        var lost = 0
        for seed in 0..<64 as Range<UInt64> {
            let disk = PowerCutFileSystem(seed: seed)
            let synced = try disk.openForAppend("/d/synced")
            try disk.fsyncDirectory("/d")
            try disk.writeAll(synced, [1, 2, 3], path: "/d/synced")
            try disk.fsync(synced, path: "/d/synced")
            try disk.writeAll(synced, [4, 5, 6], path: "/d/synced")
            let unsynced = try disk.openForAppend("/d/new")
            try disk.writeAll(unsynced, [7], path: "/d/new")
            try disk.fsync(unsynced, path: "/d/new")
            let after = disk.afterCut(seed: seed).contents
            let kept = try #require(after["/d/synced"])
            #expect(kept.starts(with: [1, 2, 3]))
            #expect(kept.count <= 6)
            if kept.count < 6 || after["/d/new"] == nil { lost += 1 }
        }
        #expect(lost > 0)
    }
}
