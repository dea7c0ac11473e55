import Foundation
import Rules
import Store
import StoreFixtures
import Testing

/// Automatic snapshots wait for the log to grow by a share of the last snapshot (`snapshotGrowthPercent`), so
/// their cost per write stays bounded however large the state is; the count of records still comes first.
@Suite(.serialized) struct SnapshotGrowthTests {
    @Test func logHasGrown_atThePercentOfTheSnapshot_andNotAByteBefore() {
        #expect(Database.logHasGrown(written: 499, snapshotBytes: 1_000, percent: 50) == false)
        #expect(Database.logHasGrown(written: 500, snapshotBytes: 1_000, percent: 50))
        #expect(Database.logHasGrown(written: 0, snapshotBytes: 1_000, percent: 0))
        #expect(Database.logHasGrown(written: 0, snapshotBytes: 0, percent: 50))
        #expect(Database.logHasGrown(written: 1_999, snapshotBytes: 1_000, percent: 200) == false)
        #expect(Database.logHasGrown(written: 2_000, snapshotBytes: 1_000, percent: 200))
    }

    @Test func logHasGrown_withSizesAtTheirBounds_neitherTrapsNorWraps() {
        #expect(Database.logHasGrown(written: .max, snapshotBytes: .max, percent: 100))
        #expect(Database.logHasGrown(written: .max / 200, snapshotBytes: .max, percent: .max) == false)
        #expect(Database.logHasGrown(written: .min, snapshotBytes: 10, percent: 10) == false)
        #expect(Database.logHasGrown(written: 5, snapshotBytes: .min, percent: .min))
    }

    static func open(_ directory: String, every: Int, growth: Int) throws -> Database {
        try Database(options: .init(directory: directory, fsync: .always, snapshotEvery: every, snapshotGrowthPercent: growth))
    }

    /// Writes 300 users and closes, which leaves one snapshot of them; returns its size in bytes.
    static func seedSnapshot(in directory: String) throws -> Int {
        let seeding = try open(directory, every: 1_000_000, growth: 0)
        for index in 0..<300 {
            _ = try seeding.writeAndWait(mutation("user-\(index)", .setAttribute(key: "name", value: .string(String(repeating: "x", count: 40)))))
        }
        try seeding.close()
        let snapshotPath = try #require(FileManager.default.contentsOfDirectory(atPath: directory).first { $0.hasPrefix("snapshot-") })
        return try #require(FileManager.default.attributesOfItem(atPath: directory + "/" + snapshotPath)[.size] as? Int)
    }

    /// A snapshot of 300 users, then one user written to: with growth 100 the next automatic snapshot waits until
    /// the log since the last has reached the snapshot's size, though `snapshotEvery` records passed long before.
    @Test func automaticSnapshot_waitsForTheLogToGrowByTheSnapshotsSize() throws {
        let directory = temporaryDirectory()
        let snapshotBytes = try Self.seedSnapshot(in: directory)
        #expect(snapshotBytes > 10_000)

        let database = try Self.open(directory, every: 10, growth: 100)
        let recovered = database.lastSnapshotSeq
        var written = 0
        while database.lastSnapshotSeq == recovered {
            _ = try database.writeAndWait(mutation("u", .increment(counter: "c", by: 1)))
            database.waitForSnapshot()
            written += 1
            try #require(written < 100_000)
        }
        // Taken at the first write after the log reached the snapshot's size, and not before.
        let logBytes = database.log.bytesWritten
        #expect(logBytes >= snapshotBytes)
        #expect(logBytes < snapshotBytes + 200)
        #expect(written > 10)
        try database.close()
    }

    /// With growth 0 (the library's default) the record count alone decides, as before.
    @Test func automaticSnapshot_withNoGrowth_followsTheRecordCount() throws {
        let directory = temporaryDirectory()
        let database = try Self.open(directory, every: 10, growth: 0)
        for index in 1...25 {
            _ = try database.writeAndWait(mutation("u\(index % 3)", .increment(counter: "c", by: 1)))
            database.waitForSnapshot()
        }
        #expect(database.lastSnapshotSeq == 20)
        try database.close()
    }
}

extension SnapshotGrowthTests {
    /// Restarts before a snapshot falls due (a crash, or an operator restarting) must not start the count again:
    /// the log replayed at each start counts as grown since the snapshot, so snapshots go on being taken.
    @Test func restartsBeforeTheSnapshotIsDue_stillCountTheLogReplayed() throws {
        let directory = temporaryDirectory()
        let snapshotBytes = try Self.seedSnapshot(in: directory)
        let reading = try Self.open(directory, every: 10, growth: 0)
        let seeded = reading.lastSnapshotSeq
        reading.closeWithoutSnapshot()
        var lastSnapshot = seeded
        // Three runs, each writing 40 % of the snapshot's size and stopping without a snapshot, as a crash does.
        for _ in 0..<3 {
            let database = try Self.open(directory, every: 10, growth: 100)
            lastSnapshot = max(lastSnapshot, database.lastSnapshotSeq)
            let start = database.log.bytesWritten
            while database.log.bytesWritten - start < snapshotBytes * 2 / 5 {
                _ = try database.writeAndWait(mutation("u", .increment(counter: "c", by: 1)))
                database.waitForSnapshot()
            }
            lastSnapshot = max(lastSnapshot, database.lastSnapshotSeq)
            database.closeWithoutSnapshot()
        }
        // 120 % of the snapshot written across the runs: the third took one.
        #expect(lastSnapshot > seeded)
    }
}
