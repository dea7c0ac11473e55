import Foundation
import Rules
import Store
import Testing

/// User ids are bytes: two spellings that Unicode calls canonically equivalent are two users, in memory, in the
/// log, in snapshots and through every restart.
@Suite(.serialized) struct UserIdentityTests {
    /// Pairs whose NFC and NFD spellings are different bytes but equal `String`s.
    static let pairs: [(nfc: String, nfd: String)] = [
        ("caf\u{E9}", "cafe\u{301}"), ("\u{C5}ngstr\u{F6}m", "A\u{30A}ngstro\u{308}m"), ("na\u{EF}ve", "nai\u{308}ve"),
        ("\u{F1}and\u{FA}", "n\u{303}andu\u{301}"), ("\u{1E9B}", "\u{17F}\u{307}"), ("\u{C7}a", "C\u{327}a"),
        ("r\u{E9}sum\u{E9}", "re\u{301}sume\u{301}"), ("\u{FC}ber", "u\u{308}ber"), ("\u{D5}", "O\u{303}"),
        ("\u{1EA0}", "A\u{323}"), ("\u{AC00}", "\u{1100}\u{1161}")
    ]

    @Test func pairs_areEqualStringsButDifferentBytes() {
        for (nfc, nfd) in Self.pairs {
            #expect(nfc == nfd)
            #expect(Array(nfc.utf8) != Array(nfd.utf8))
        }
    }

    func write(_ database: Database) throws {
        for (index, (nfc, nfd)) in Self.pairs.enumerated() {
            _ = try database.writeAndWait(mutation(nfc, .setCounter(counter: "k", value: index), .setAttribute(key: "form", value: "nfc")))
            _ = try database.writeAndWait(mutation(nfd, .setCounter(counter: "k", value: 100 + index), .setAttribute(key: "form", value: "nfd")))
        }
    }

    func expectEveryUserKeptApart(_ database: Database, _ when: String) {
        #expect(database.store.userCount == 2 * Self.pairs.count, "\(when)")
        #expect(database.store.allUsers.count == 2 * Self.pairs.count, "\(when)")
        for (index, (nfc, nfd)) in Self.pairs.enumerated() {
            #expect(database.store.context(of: nfc)?.counters["k"] == index, "\(when): \(nfc)")
            #expect(database.store.context(of: nfc)?.attributes["form"] == "nfc", "\(when): \(nfc)")
            #expect(database.store.context(of: nfd)?.counters["k"] == 100 + index, "\(when): \(nfd)")
            #expect(database.store.context(of: nfd)?.attributes["form"] == "nfd", "\(when): \(nfd)")
        }
    }

    /// Live, after replaying the log, and after a clean restart from the snapshot alone.
    @Test func canonicallyEquivalentIds_areDistinctUsers_live_replayed_andSnapshotted() throws {
        let directory = temporaryDirectory()
        let database = try Database(options: .init(directory: directory, fsync: .never, shardCount: 1))
        try write(database)
        expectEveryUserKeptApart(database, "live")
        database.log.close()
        let replayed = try Database(options: .init(directory: directory, fsync: .never))
        expectEveryUserKeptApart(replayed, "replayed")
        try replayed.close()
        let restarted = try Database(options: .init(directory: directory, fsync: .never))
        defer { restarted.log.close() }
        #expect(restarted.recovery.snapshot != nil)
        #expect(restarted.recovery.replayedRecords == 0)
        expectEveryUserKeptApart(restarted, "from the snapshot")
    }

    /// Erasing one spelling leaves the other, in memory and after a restart.
    @Test func erasingOneSpelling_keepsTheOther() throws {
        let directory = temporaryDirectory()
        let database = try Database(options: .init(directory: directory, fsync: .never, shardCount: 1))
        try write(database)
        for (nfc, _) in Self.pairs { _ = try database.writeAndWait(mutation(nfc, .erase)) }
        try database.close()
        let restarted = try Database(options: .init(directory: directory, fsync: .never))
        defer { restarted.log.close() }
        #expect(restarted.store.userCount == Self.pairs.count)
        for (index, (nfc, nfd)) in Self.pairs.enumerated() {
            #expect(restarted.store.context(of: nfc) == nil)
            #expect(restarted.store.context(of: nfd)?.counters["k"] == 100 + index)
        }
    }
}
