import Foundation
import Rules
import Store
import StoreFixtures
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A snapshot that cannot be written (a full disk) must not be retried on every write: each attempt rotates the
/// log, so retrying at once would leave a segment per write. Failures are counted and reported.
@Suite(.serialized) struct SnapshotFailureTests {
    /// Whether the disk is full for snapshots; tests free it to see the next attempt succeed.
    final class DiskFull: Sendable {
        let full = Atomic<Bool>(true)
    }

    /// Fails every write of a snapshot file with ENOSPC while `disk` is full; the log itself keeps working.
    static func fullForSnapshots(_ disk: DiskFull) -> FaultyFileSystem {
        FaultyFileSystem(fault: .error(ENOSPC)) { _, path in path.contains("snapshot-") && disk.full.load(ordering: .relaxed) }
    }

    static func segments(in directory: String) -> Int {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasPrefix("segment-") }.count
    }

    static func open(_ directory: String, _ fileSystem: FileSystem, backoff: Duration) throws -> Database {
        try Database(
            options: .init(directory: directory, fsync: .always, snapshotEvery: 10, snapshotRetryBackoff: backoff),
            fileSystem: fileSystem)
    }

    /// Without a time backoff, a failed snapshot is tried again only after another `snapshotEvery` records.
    @Test func snapshotFails_nextAttempt_onlyAfterAnotherSnapshotEveryRecords() throws {
        let directory = temporaryDirectory()
        let disk = DiskFull()
        let database = try Self.open(directory, Self.fullForSnapshots(disk), backoff: .zero)
        let reported = Mutex<[SnapshotFailure]>([])
        database.onSnapshotFailure = { failure in reported.withLock { $0.append(failure) } }
        for index in 1...60 {
            _ = try database.writeAndWait(mutation("u\(index % 7)", .setAttribute(key: "k", value: .int(index))))
            database.waitForSnapshot()
        }
        // Attempts at seq 10, 20, ..., 60: one rotation each at most.
        #expect(database.snapshotFailures == 6)
        // Each report counts itself: the handler reads the count from the report, not from the database.
        #expect(reported.withLock { $0.map(\.failuresSinceStart) } == [1, 2, 3, 4, 5, 6])
        #expect(reported.withLock { $0.first?.underlying.code } == ENOSPC)
        #expect(reported.withLock { $0.first?.underlying.path.contains(directory) } == true)
        #expect(database.lastSnapshotError?.code == ENOSPC)
        #expect(Self.segments(in: directory) <= 7)
        #expect(database.lastSnapshotSeq == 0)
        // Once the disk has room again the next due snapshot is taken and the failure is over.
        disk.full.store(false, ordering: .relaxed)
        for index in 61...70 {
            _ = try database.writeAndWait(mutation("u\(index % 7)", .setAttribute(key: "k", value: .int(index))))
            database.waitForSnapshot()
        }
        #expect(database.lastSnapshotSeq == 70)
        #expect(database.lastSnapshotError == nil)
        #expect(database.snapshotFailures == 6)
        try database.close()
    }

    /// With a time backoff running, no number of records brings the next attempt forward.
    @Test func snapshotFails_duringTheBackoff_noFurtherAttemptOrRotation() throws {
        let directory = temporaryDirectory()
        let disk = DiskFull()
        let database = try Self.open(directory, Self.fullForSnapshots(disk), backoff: .seconds(3600))
        for index in 1...60 {
            _ = try database.writeAndWait(mutation("u\(index % 7)", .setAttribute(key: "k", value: .int(index))))
            database.waitForSnapshot()
        }
        #expect(database.snapshotFailures == 1)
        #expect(Self.segments(in: directory) <= 2)
        database.log.close()
    }

    /// A failed log write is reported once, however many writes are refused after it.
    @Test func logWriteFails_isReportedOnce() throws {
        let directory = temporaryDirectory()
        let probe = FaultyFileSystem()
        _ = try Database(options: .init(directory: temporaryDirectory(), fsync: .always), fileSystem: probe)
        let database = try Database(
            options: .init(directory: directory, fsync: .always),
            fileSystem: FaultyFileSystem(failAt: probe.calls + 1, fault: .error(EIO)))
        let reported = Mutex<[StorageFailure]>([])
        database.onStorageFailure = { failure in reported.withLock { $0.append(failure) } }
        for index in 1...5 { _ = try? database.writeAndWait(mutation("u", .setAttribute(key: "k", value: .int(index)))) }
        #expect(reported.withLock { $0.count } == 1)
        #expect(reported.withLock { $0.first?.underlying.code } == EIO)
        database.log.close()
    }
}
