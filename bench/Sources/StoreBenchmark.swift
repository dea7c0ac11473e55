import Foundation
import Rules
import Store

/// Durable writes per second (fsync always and interval) with 32 concurrent writers, replay speed, and bytes per
/// user for a typical context at 1 M users. `SPECD_BENCH_USERS` and `SPECD_BENCH_SECONDS` shrink it.
enum StoreBenchmark {
    static let environment = ProcessInfo.processInfo.environment
    static let userCount = Int(environment["SPECD_BENCH_USERS"] ?? "") ?? 1_000_000
    static let seconds = Double(environment["SPECD_BENCH_SECONDS"] ?? "") ?? 5

    static func run() {
        print("store: 32 writer threads, INCR-like single-counter writes, \(seconds) s per policy")
        let directory = NSTemporaryDirectory() + "specd-bench-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for policy in [FsyncPolicy.always, .interval] {
            let path = directory + "-" + policy.rawValue
            defer { try? FileManager.default.removeItem(atPath: path) }
            let database = try! Database(options: .init(directory: path, fsync: policy, snapshotEvery: 100_000_000))
            let total = writeLoad(database, writers: 32, seconds: seconds)
            let perSecond = Double(total) / seconds
            print(
                String(
                    format: "  durable writes, fsync=%@: %10.0f writes/s  (%d fsyncs, %.1f writes per fsync)",
                    policy.rawValue, perSecond, database.log.fsyncs, Double(total) / Double(max(1, database.log.fsyncs))))
            database.log.close()
        }
        measureReplay(directory: directory + "-replay")
        measureMemory()
    }

    /// Records replayed per second at a start: a log of `SPECD_BENCH_REPLAY` (500 000) INCR-like writes over 32 000 users (the
    /// write load's shape, but the same log whatever the write phases managed), opened three times; the scan and
    /// decode alone first, for reference.
    static func measureReplay(directory: String) {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let records = Int(environment["SPECD_BENCH_REPLAY"] ?? "") ?? 500_000
        do {
            let database = try! Database(options: .init(directory: directory, fsync: .never, snapshotEvery: 100_000_000))
            let start = Instant(milliseconds: 1_773_144_000_000)
            for index in 0..<records {
                _ = try? database.writeAndWait(
                    Mutation(
                        user: "user-\(index % 32)-\(index / 32 % 1000)", now: start + Int64(index), actions: [.increment(counter: "hits", by: 1)]))
            }
            database.log.close()
        }
        let scanStarted = ContinuousClock.now
        let scanned = try! Recovery.run(directory: directory, fileSystem: PosixFileSystem(), repair: false, apply: { _ in }, loadSnapshot: { _ in })
        print("  (scan and decode only: \(scanned.replayedRecords) records in \(ContinuousClock.now - scanStarted))")
        for _ in 0..<3 {
            let started = ContinuousClock.now
            let recovered = try! Database(options: .init(directory: directory, fsync: .never))
            let elapsedSeconds = (ContinuousClock.now - started).inSeconds
            print(
                String(
                    format: "  replay: %d records in %.2f s = %.0f records/s", recovered.recovery.replayedRecords, elapsedSeconds,
                    Double(recovered.recovery.replayedRecords) / elapsedSeconds))
            recovered.log.close()
        }
    }

    static func writeLoad(_ database: Database, writers: Int, seconds: Double) -> Int {
        let deadline = Date().addingTimeInterval(seconds)
        let counts = UnsafeMutableBufferPointer<Int>.allocate(capacity: writers)
        counts.initialize(repeating: 0)
        defer { counts.deallocate() }
        nonisolated(unsafe) let shared = counts
        let group = DispatchGroup()
        for writer in 0..<writers {
            group.enter()
            Thread.detachNewThread {
                var done = 0
                // Bounded in time and in count.
                while Date() < deadline, done < 5_000_000 {
                    let now = Instant(seconds: Date().timeIntervalSince1970)
                    _ = try? database.writeAndWait(
                        Mutation(
                            user: "user-\(writer)-\(done % 1000)", now: now,
                            actions: [.increment(counter: "hits", by: 1)]))
                    done += 1
                }
                shared[writer] = done
                group.leave()
            }
        }
        group.wait()
        return counts.reduce(0, +)
    }

    /// A typical context: 5 counters, 3 events, 2 flags, 2 attributes, 1 segment, 2 donation summaries.
    static func typicalContext(_ index: Int) -> UserContext {
        let base = Instant(milliseconds: 1_773_144_000_000 + Int64(index))
        var context = UserContext()
        context.launchedAt = base
        context.counters = ["screen_views": index % 50, "promo_banner_count": 1, "rating_prompt_count": 0, "editor_opened": 3, "purchases": index % 7]
        context.events = ["last_promo_banner": base, "installed": base - 86_400_000, "last_tip_shown": base - 3_600_000]
        context.flags = ["promo": true, "tips_disabled": false]
        context.attributes = ["subscription_status": "premium", "country": "FR"]
        context.segments = ["vip"]
        context.donations = [
            "appStarted": DonationSummary(
                count: 3, first: .init(at: base - 172_800_000, appVersion: "1.0"), last: .init(at: base, appVersion: "1.2"),
                recent: [base - 172_800_000, base - 86_400_000, base]),
            "paywallViewed": DonationSummary(
                count: 1, first: .init(at: base, appVersion: "1.2"), last: .init(at: base, appVersion: "1.2"), recent: [base])
        ]
        return context
    }

    /// The actions that build `typicalContext(index)` through the reducer, as live writes would.
    static func typicalActions(_ index: Int, start: Instant) -> [Action] {
        let template = typicalContext(index)
        var actions: [Action] = template.counters.map { .setCounter(counter: $0.0, value: $0.1) }
        actions += template.events.map { .recordEvent(event: $0.0, at: $0.1) }
        actions += template.flags.map { .setFlag(flag: $0.0, value: $0.1) }
        actions += template.attributes.map { .setAttribute(key: $0.0, value: $0.1) }
        actions += template.segments.map { .addSegment($0) }
        actions += [
            .donate(event: "appStarted", at: start - 172_800_000, appVersion: "1.0"),
            .donate(event: "appStarted", at: start - 86_400_000, appVersion: "1.1"),
            .donate(event: "appStarted", at: start, appVersion: "1.2"),
            .donate(event: "paywallViewed", at: start, appVersion: "1.2")
        ]
        return actions
    }

    static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        return (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    static func measureMemory() {
        let before = residentBytes()
        let store = UserStore(shardCount: 64)
        let start = Instant(milliseconds: 1_773_144_000_000)
        for index in 0..<userCount {
            // Through the reducer, as live writes would build it (no log: memory only).
            _ = try? store.apply(Mutation(user: "user-\(index)", now: start, actions: typicalActions(index, start: start)))
        }
        let after = residentBytes()
        print(
            String(
                format: "  memory: %d users, %.0f bytes per user (resident set growth)", store.userCount,
                Double(after - before) / Double(max(1, store.userCount))))
    }
}
