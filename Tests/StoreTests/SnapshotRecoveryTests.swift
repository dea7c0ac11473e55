import Foundation
import Rules
import Store
import StoreFixtures
import Testing

/// A damaged snapshot is never a reason to start with less data: recovery falls back to the previous snapshot and
/// the segments after it when that chain is whole, and otherwise refuses, naming the snapshot.
@Suite(.serialized) struct SnapshotRecoveryTests {
    func open(_ directory: String, snapshotEvery: Int = 1_000_000) throws -> Database {
        try Database(options: .init(directory: directory, fsync: .never, snapshotEvery: snapshotEvery))
    }

    func names(_ directory: String, prefix: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix(prefix) && !$0.hasSuffix(".tmp") }.sorted()
    }

    /// Writes `users` users with one counter each and stops cleanly: everything is in the newest snapshot.
    func cleanShutdown(_ directory: String, users: Int = 20, from first: Int = 0, snapshots: Int = 1) throws {
        let database = try open(directory)
        for round in 0..<snapshots {
            for index in first..<(first + users) {
                _ = try database.writeAndWait(mutation("user-\(index)", .setCounter(counter: "k", value: index + round)))
            }
            if round + 1 < snapshots { try database.takeSnapshot() }
        }
        try database.close()
    }

    enum Damage: String, CaseIterable, CustomTestStringConvertible {
        case byteFlip, truncation, emptied
        var testDescription: String { rawValue }

        func apply(to path: String) throws {
            var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            switch self {
            case .byteFlip: bytes[bytes.count / 2] ^= 0x20
            case .truncation: bytes.removeLast(bytes.count / 3)
            case .emptied: bytes.removeAll()
            }
            try Data(bytes).write(to: URL(fileURLWithPath: path))
        }
    }

    /// The reported case: a clean stop, then one flipped byte (or a cut) in the only snapshot. The log that built
    /// it is still there, so every user comes back, with a warning naming the bad file.
    @Test(arguments: Damage.allCases)
    func damagedSnapshot_afterCleanShutdown_recoversEveryUserFromTheLog(damage: Damage) throws {
        let directory = temporaryDirectory()
        try cleanShutdown(directory)
        let snapshot = try #require(try names(directory, prefix: "snapshot-").last)
        try damage.apply(to: directory + "/" + snapshot)
        let recovered = try open(directory)
        defer { recovered.log.close() }
        #expect(recovered.store.userCount == 20)
        for index in 0..<20 { #expect(recovered.store.context(of: "user-\(index)")?.counters["k"] == index) }
        #expect(recovered.recovery.lastSeq == 20)
        #expect(recovered.recovery.warnings.contains { $0.contains(snapshot) }, "\(recovered.recovery.warnings)")
        // Seq goes on from where it was, never back.
        #expect(try recovered.writeAndWait(mutation("late", .increment(counter: "k", by: 1))).seq == 21)
    }

    /// Two snapshots taken: the newest is damaged, the previous one plus the segments after it rebuild everything.
    @Test(arguments: Damage.allCases)
    func damagedNewestSnapshot_fallsBackToThePreviousOneAndItsSegments(damage: Damage) throws {
        let directory = temporaryDirectory()
        try cleanShutdown(directory, snapshots: 3)
        let snapshots = try names(directory, prefix: "snapshot-")
        #expect(snapshots.count == 2, "the previous snapshot is kept: \(snapshots)")
        try damage.apply(to: directory + "/" + snapshots[1])
        let recovered = try open(directory)
        defer { recovered.log.close() }
        for index in 0..<20 { #expect(recovered.store.context(of: "user-\(index)")?.counters["k"] == index + 2) }
        #expect(recovered.recovery.snapshot?.hasSuffix(snapshots[0]) == true)
        #expect(recovered.recovery.lastSeq == 60)
        #expect(recovered.recovery.warnings.contains { $0.contains(snapshots[1]) })
    }

    /// After a fallback, the next snapshots are taken and compacted as usual; the damaged file is replaced and the
    /// data stays whole across further restarts.
    @Test func afterAFallback_laterSnapshotsAndRestartsKeepEverything() throws {
        let directory = temporaryDirectory()
        try cleanShutdown(directory, snapshots: 2)
        let snapshots = try names(directory, prefix: "snapshot-")
        try Damage.byteFlip.apply(to: directory + "/" + snapshots.last!)
        for round in 0..<3 {
            let database = try open(directory)
            _ = try database.writeAndWait(mutation("round", .setCounter(counter: "k", value: round)))
            try database.close()
        }
        let recovered = try open(directory)
        defer { recovered.log.close() }
        #expect(recovered.recovery.warnings.isEmpty, "\(recovered.recovery.warnings)")
        #expect(recovered.store.userCount == 21)
        #expect(recovered.store.context(of: "round")?.counters["k"] == 2)
        #expect(recovered.recovery.lastSeq == 43)
    }

    /// The segments the previous snapshot needs are gone (an old directory, a careless copy): refuse, naming the
    /// damaged snapshot and the offset, never start with less.
    @Test(arguments: Damage.allCases)
    func damagedSnapshot_withoutAWholeChain_refusesNamingTheSnapshot(damage: Damage) throws {
        let directory = temporaryDirectory()
        try cleanShutdown(directory, snapshots: 2)
        let snapshot = try #require(try names(directory, prefix: "snapshot-").last)
        for segment in try names(directory, prefix: "segment-").dropLast() { try FileManager.default.removeItem(atPath: directory + "/" + segment) }
        try damage.apply(to: directory + "/" + snapshot)
        do {
            _ = try open(directory)
            Issue.record("started with a damaged snapshot and no way back")
        } catch {
            guard case .corrupt(let file, _, let reason)? = error as? Recovery.Failure else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(file.hasSuffix(snapshot), "names \(file): \(reason)")
        }
    }

    /// Both snapshots damaged, and the segments before the older one compacted away: nothing whole is left.
    @Test func bothSnapshotsDamaged_refusesNamingTheNewest() throws {
        let directory = temporaryDirectory()
        try cleanShutdown(directory, snapshots: 3)
        let snapshots = try names(directory, prefix: "snapshot-")
        #expect(snapshots.count == 2)
        for snapshot in snapshots { try Damage.byteFlip.apply(to: directory + "/" + snapshot) }
        #expect(throws: Recovery.Failure.self) { _ = try open(directory) }
        do {
            _ = try open(directory)
        } catch {
            guard case .corrupt(let file, _, _)? = error as? Recovery.Failure else { return }
            #expect(file.hasSuffix(snapshots[1]))
        }
    }

    /// A snapshot is read back after it is written; one that does not verify is not trusted, and the files that
    /// recovery would need instead are not deleted.
    @Test func snapshotThatFailsVerification_deletesNothing() throws {
        let directory = temporaryDirectory()
        let corrupting = CorruptingFileSystem()
        let database = try Database(options: .init(directory: directory, fsync: .never), fileSystem: corrupting)
        for index in 0..<10 { _ = try database.writeAndWait(mutation("user-\(index)", .setCounter(counter: "k", value: index))) }
        try database.takeSnapshot()
        for index in 0..<10 { _ = try database.writeAndWait(mutation("user-\(index)", .setCounter(counter: "k", value: index + 1))) }
        try database.takeSnapshot()
        let before = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        corrupting.corruptNextSnapshot()
        for index in 0..<10 { _ = try database.writeAndWait(mutation("user-\(index)", .setCounter(counter: "k", value: index + 2))) }
        #expect(throws: IOError.self) { try database.takeSnapshot() }
        let after = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        #expect(Set(before).isSubset(of: Set(after)), "deleted \(Set(before).subtracting(after))")
        #expect(!after.contains { $0.hasSuffix(".snap") && !before.contains($0) }, "an unverified snapshot was left in place: \(after)")
        database.log.close()
        let recovered = try open(directory)
        defer { recovered.log.close() }
        for index in 0..<10 { #expect(recovered.store.context(of: "user-\(index)")?.counters["k"] == index + 2) }
    }
}
