import Foundation
import Rules
import Store
import StoreFixtures
import TestRandom
import Testing

/// One user's records and base context, read from the retained files while the database is open.
@Suite(.serialized) struct HistoryReaderTests {
    /// Keeps every record with the states around it.
    struct Collector: UserLogVisitor {
        var base: UserContext?
        var starts = 0
        var steps: [(record: UserLog.Record, before: UserContext?, after: UserContext?)] = []
        var records: [UserLog.Record] { steps.map(\.record) }

        mutating func start(baseSeq: UInt64, base: UserContext?) {
            self.base = base
            starts += 1
            steps = []
        }

        mutating func visit(_ record: UserLog.Record, before: UserContext?, after: UserContext?) { steps.append((record, before, after)) }
    }

    func read(_ database: Database, _ user: String, baseBefore seq: UInt64? = nil) throws -> (log: UserLog, collected: Collector) {
        var collector = Collector()
        let log = try database.userLog(of: user, baseBefore: seq, into: &collector)
        return (log, collector)
    }

    func open(_ directory: String) throws -> Database {
        try Database(options: .init(directory: directory, fsync: .never, snapshotEvery: 1_000_000))
    }

    @discardableResult
    func write(_ database: Database, _ user: String, _ actions: Action..., at now: Instant = t0) throws -> UInt64 {
        try database.writeAndWait(Mutation(user: user, now: now, actions: actions)).seq
    }

    /// Ids are bytes: a user whose id is a prefix of another's, or another normalization of it, is another user.
    @Test func userLog_keepsOnlyThatUsersRecords_byteForByte() throws {
        let database = try open(temporaryDirectory())
        defer { database.closeWithoutSnapshot() }
        let nfc = "caf\u{E9}"
        let nfd = "cafe\u{301}"
        let mine = try [
            write(database, "u1", .increment(counter: "k", by: 1)),
            write(database, "u1", .setFlag(flag: "f", value: true))
        ]
        try write(database, "u10", .increment(counter: "k", by: 1))
        try write(database, "u", .increment(counter: "k", by: 1))
        try write(database, nfd, .increment(counter: "k", by: 1))
        let theirs = try write(database, nfc, .increment(counter: "k", by: 2))
        let (log, collected) = try read(database, "u1")
        #expect(collected.records.map(\.seq) == mine)
        #expect(log.baseSeq == 0 && log.base == nil && log.oldestSeq == 1)
        #expect(log.lastSeq == theirs)
        #expect(try read(database, nfc).collected.records.map(\.seq) == [theirs])
        #expect(try read(database, "nobody").collected.records.isEmpty)
    }

    /// Replaying the records on the base gives the live state, record by record.
    @Test func replay_endsAtTheLiveState() throws {
        let database = try open(temporaryDirectory())
        defer { database.closeWithoutSnapshot() }
        var random = SplitMix(seed: 7)
        for step in 0..<200 {
            let user = "u\(step % 3)"
            _ = try? database.writeAndWait(Mutation(user: user, now: t0 + Int64(step * 1000), actions: [random.action(now: t0)]))
            if step == 120 { try database.takeSnapshot() }
        }
        for user in ["u0", "u1", "u2"] {
            let (log, collected) = try read(database, user)
            var last = log.base
            #expect(collected.base == log.base && collected.starts == 1)
            for step in collected.steps {
                #expect(step.before == last)
                last = step.after
            }
            #expect(last == database.context(of: user))
        }
    }

    /// After two snapshots the log before the older one is gone: the oldest reachable seq is the older snapshot's
    /// + 1, its base is that snapshot, and a seq asked about gets the nearest snapshot before it.
    @Test func userLog_afterTwoSnapshots_startsAfterTheOlderOne() throws {
        let directory = temporaryDirectory()
        let database = try open(directory)
        defer { database.closeWithoutSnapshot() }
        try write(database, "u1", .increment(counter: "k", by: 1))
        try write(database, "u1", .increment(counter: "k", by: 1))
        let first = try database.takeSnapshot()
        // The log from seq 1 is still there behind the first snapshot.
        #expect(try read(database, "u1").log.oldestSeq == 1)
        let third = try write(database, "u1", .increment(counter: "k", by: 1))
        let second = try database.takeSnapshot()
        let fourth = try write(database, "u1", .increment(counter: "k", by: 1))
        let (log, collected) = try read(database, "u1")
        #expect(log.oldestSeq == first + 1)
        #expect(log.baseSeq == first && log.base?.counters["k"] == 2)
        #expect(collected.records.map(\.seq) == [third, fourth])
        let nearest = try read(database, "u1", baseBefore: fourth)
        #expect(nearest.log.baseSeq == second && nearest.log.base?.counters["k"] == 3)
        #expect(nearest.collected.records.map(\.seq) == [fourth])
    }

    /// A cancelled pending fire is logged for the user but changes nothing: an erased (or unknown) user is not
    /// brought back, live or after a restart, and the record reads back as written.
    @Test func cancelPendingFire_createsNoUser_liveOrAfterReplay() throws {
        let directory = temporaryDirectory()
        let due = t0 + 5000
        var database = try open(directory)
        try write(database, "kept", .setFlag(flag: "f", value: true))
        let kept = database.context(of: "kept")
        let gone = try write(database, "gone", .cancelPendingFire(trigger: "later", due: due))
        try write(database, "kept", .cancelPendingFire(trigger: "later", due: due))
        #expect(database.context(of: "gone") == nil)
        #expect(database.context(of: "kept") == kept)
        #expect(database.health.users == 1)
        #expect(
            try read(database, "gone").collected.records.map(\.mutation.actions) == [[.cancelPendingFire(trigger: "later", due: due)]])
        #expect(gone > 0)
        database.closeWithoutSnapshot()
        database = try open(directory)
        #expect(database.context(of: "gone") == nil)
        #expect(database.context(of: "kept") == kept)
        #expect(database.health.users == 1)
        try database.close()
        // And from the snapshot that close wrote.
        database = try open(directory)
        defer { database.closeWithoutSnapshot() }
        #expect(database.context(of: "gone") == nil && database.context(of: "kept") == kept)
    }

    /// A damaged record of the user is damage, never skipped: the read names the file.
    @Test func userLog_damagedRecordOfTheUser_isCorruptNotSkipped() throws {
        let directory = temporaryDirectory()
        let database = try open(directory)
        defer { database.closeWithoutSnapshot() }
        try write(database, "u1", .setAttribute(key: "plan", value: "gold"))
        try write(database, "u2", .increment(counter: "k", by: 1))
        let segment = try FileManager.default.contentsOfDirectory(atPath: directory).first { $0.hasPrefix("segment-") }!
        let path = (directory as NSString).appendingPathComponent(segment)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let at = bytes.firstIndex(of: UInt8(ascii: "g"))!
        bytes[at] ^= 0x20
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(throws: HistoryReadError.self) { try read(database, "u1") }
        // Another user's records are framed but not checked: their read still works.
        #expect(try read(database, "u2").collected.records.count == 1)
    }
}
