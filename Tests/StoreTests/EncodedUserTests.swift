import Foundation
import Rules
import TestRandom
import Testing

@testable import Store

/// Users recovered from a snapshot stay as their records until touched (`EncodedContext`); a store that holds
/// some that way must read, write, snapshot and recover exactly as one that decoded them all.
@Suite(.serialized) struct EncodedUserTests {
    @Test func recoveredUsers_areDecodedOnFirstTouch_andSnapshotsCopyTheRestDroppingExpiredValues() throws {
        let directory = temporaryDirectory()
        let database = try openDatabase(directory)
        for index in 0..<50 { _ = try database.store.apply(mutation("user-\(index)", .increment(counter: "n", by: index + 1))) }
        _ = try database.store.apply(
            mutation("expiring", .setExpiringFlag(flag: "gone", value: true, expiresAt: t0 + 5_000), .setFlag(flag: "kept", value: true)))
        let written = database.store.allUsers
        try database.close()

        // Recovered: every user a record, counted, listed and readable without being decoded first.
        let later = try openDatabase(directory, clock: { t0 + 10_000 })
        #expect(later.store.usersStillEncoded == 51 && later.store.userCount == 51)
        #expect(Set(later.store.userIDs) == Set(written.keys))
        #expect(later.store.context(of: "user-3")?.counters["n"] == 4)
        _ = try later.store.apply(mutation("user-4", .increment(counter: "n", by: 100), at: t0 + 10_000))
        #expect(later.store.usersStillEncoded == 49)
        #expect(later.store.context(of: "user-4")?.counters["n"] == 105)
        // The snapshot copies 48 records as they are and re-encodes the one whose expired flag must go.
        try later.takeSnapshot()
        later.log.close()

        let last = try openDatabase(directory)
        defer { last.log.close() }
        var expected = written
        expected[ByteKey("user-4")]?.counters["n"] = 105
        expected[ByteKey("expiring")] = expected[ByteKey("expiring")]?.removingExpired(at: t0 + 10_000)
        #expect(last.store.allUsers == expected)
        #expect(last.store.context(of: "expiring")?.flags["gone"] == nil && last.store.context(of: "expiring")?.flags["kept"] == true)
        #expect(last.recovery.replayedRecords == 0)
    }

    /// Every `String` reachable from `value`'s stored properties (dictionaries, arrays and optionals included).
    static func strings(in value: Any, depth: Int = 0) -> [String] {
        if let text = value as? String { return [text] }
        guard depth < 12 else { return [] }
        return Mirror(reflecting: value).children.flatMap { strings(in: $0.value, depth: depth + 1) }
    }

    /// Erasing must remove a user from memory at once (README, "Erasing a user"): a recovered user decoded only to
    /// be erased left its attribute values in an interner the shard kept for later decodes.
    @Test func erasingARecoveredUser_leavesNoneOfItsValuesInItsShard() throws {
        let directory = temporaryDirectory()
        let database = try openDatabase(directory, shardCount: 1)
        _ = try database.store.apply(mutation("cold", .increment(counter: "n", by: 1)))
        _ = try database.store.apply(mutation("alice", .setAttribute(key: "email", value: .string("alice@example.com"))))
        try database.close()

        let later = try openDatabase(directory, shardCount: 1)
        defer { later.log.close() }
        _ = try later.store.apply(mutation("alice", .erase))
        #expect(later.store.context(of: "alice") == nil && later.store.usersStillEncoded == 1)
        let kept = later.store.capture(rotating: false).shards.flatMap { Self.strings(in: $0) }
        #expect(!kept.contains("alice@example.com"), "\(kept.filter { !$0.isEmpty })")
    }

    /// Users still held as records count toward the user cap and the total, keep byte identity (NFC and NFD
    /// `café` are two users), and are written, erased and recovered like any other.
    @Test func recoveredRecords_countTowardTheCap_andKeepByteIdentity() throws {
        let directory = temporaryDirectory()
        let database = try openDatabase(directory)
        _ = try database.store.apply(mutation("caf\u{E9}", .increment(counter: "n", by: 1)))
        _ = try database.store.apply(mutation("cafe\u{301}", .increment(counter: "n", by: 2)))
        _ = try database.store.apply(mutation("x", .increment(counter: "n", by: 3)))
        try database.close()

        let later = try openDatabase(directory, maxUsers: 3)
        #expect(later.store.userCount == 3 && later.store.usersStillEncoded == 3)
        #expect(later.store.context(of: "cafe\u{301}")?.counters["n"] == 2 && later.store.context(of: "caf\u{E9}")?.counters["n"] == 1)
        #expect(throws: StoreError.self) { try later.store.apply(mutation("new", .increment(counter: "n", by: 1))) }
        _ = try later.store.apply(mutation("x", .erase))
        #expect(later.store.userCount == 2)
        _ = try later.store.apply(mutation("new", .increment(counter: "n", by: 1)))
        try later.close()
        let last = try openDatabase(directory)
        defer { last.log.close() }
        #expect(last.store.userCount == 3 && last.store.context(of: "x") == nil && last.store.context(of: "new") != nil)
    }

    /// The records left are counted exactly whichever path decodes a user (a read, a write, an erase, a snapshot
    /// settling replayed records), and each erased or decoded one leaves the count. A replayed record waits with
    /// its user's record (`UserTable.deferred`) and is in the user once read.
    @Test func recordsLeft_countDownExactly_throughReadsWritesAndSnapshots() throws {
        let directory = temporaryDirectory()
        let database = try openDatabase(directory)
        for index in 0..<10 { _ = try database.store.apply(mutation("user-\(index)", .increment(counter: "n", by: 1))) }
        try database.close()
        let tail = try openDatabase(directory)
        for index in 0..<3 { _ = try tail.store.apply(mutation("user-\(index)", .increment(counter: "n", by: 1))) }
        _ = try tail.store.apply(mutation("new", .increment(counter: "n", by: 1)))
        tail.log.close()

        let later = try openDatabase(directory)
        defer { later.log.close() }
        #expect(later.recovery.replayedRecords == 4)
        #expect(later.store.usersStillEncoded == 10 && later.store.userCount == 11)
        _ = later.store.context(of: "user-5")
        _ = later.store.context(of: "user-5")
        _ = later.store.context(of: "nobody")
        _ = try later.store.apply(mutation("user-6", .erase))
        #expect(later.store.usersStillEncoded == 8 && later.store.userCount == 10)
        #expect(later.store.context(of: "user-0")?.counters["n"] == 2)
        #expect(later.store.usersStillEncoded == 7)
        // A snapshot first decodes the users whose records still wait (user-1, user-2), and copies the rest.
        try later.takeSnapshot()
        #expect(later.store.usersStillEncoded == 5 && later.store.userCount == 10)
        for index in 0..<10 { _ = later.store.context(of: "user-\(index)") }
        #expect(later.store.usersStillEncoded == 0)
        #expect(later.store.context(of: "user-1")?.counters["n"] == 2 && later.store.context(of: "user-9")?.counters["n"] == 1)
    }

    /// Replayed records wait for their users, applied when each is decoded: the state must be exactly the one the
    /// live store held, whatever the records did (erases, batches, refused actions), read user by user, read whole,
    /// written over, and carried through a snapshot that settles them.
    @Test(arguments: [31, 32, 33] as [UInt64])
    func replayedRecords_appliedOnFirstTouch_giveTheLiveState(seed: UInt64) throws {
        var random = SplitMix(seed: seed)
        let directory = temporaryDirectory()
        let users = (0..<40).map { "user-\($0)" }
        func randomMutation(at now: Instant) -> Mutation {
            Mutation(user: users[random.next(upTo: users.count)], now: now, actions: (0...random.next(upTo: 3)).map { _ in random.action(now: now) })
        }
        let database = try openDatabase(directory, shardCount: 4)
        for step in 0..<400 { _ = try? database.store.apply(randomMutation(at: t0 + Int64(step))) }
        try database.close()
        let tail = try openDatabase(directory, shardCount: 4)
        for step in 400..<700 { _ = try? tail.store.apply(randomMutation(at: t0 + Int64(step))) }
        let live = tail.store.allUsers
        tail.log.close()

        // Whole, without touching anyone (`allUsers` decodes copies and leaves the records waiting).
        let whole = try openDatabase(directory, shardCount: 4)
        #expect(whole.recovery.replayedRecords > 0)
        #expect(whole.store.capture(rotating: false).shards.contains { !$0.deferred.isEmpty }, "no record waited")
        #expect(whole.store.allUsers == live)
        // User by user, in a random order, with writes landing on some first.
        var order = users
        for index in order.indices.reversed() { order.swapAt(index, random.next(upTo: index + 1)) }
        for user in order {
            if random.next(upTo: 4) == 0 {
                let write = mutation(user, .increment(counter: "touched", by: 1), at: t0 + 1_000)
                var expected = live[ByteKey(user)]
                _ = try? Reducer.applyInPlace(write, to: &expected, policy: HistoryPolicy(), limits: .unlimited)
                _ = try whole.store.apply(write)
                #expect(whole.store.context(of: user) == expected, "\(user)")
            } else {
                #expect(whole.store.context(of: user) == live[ByteKey(user)], "\(user)")
            }
        }
        whole.log.close()

        // Through a snapshot taken before anyone is touched, then recovered again.
        let settling = try openDatabase(directory, shardCount: 4)
        let before = settling.store.allUsers
        try settling.takeSnapshot()
        #expect(settling.store.allUsers == before)
        settling.log.close()
        let last = try openDatabase(directory, shardCount: 4)
        defer { last.log.close() }
        #expect(last.recovery.replayedRecords == 0)
        #expect(last.store.allUsers == before)
    }

    /// A recovered user decoded on first touch shares its keys with every other user, as a write would
    /// (`KeyInterner`): a million users each holding a copy of every key past 15 bytes cost about 250 bytes a user.
    /// Its values stay its own.
    @Test func recoveredUsers_shareLongKeys_butNotValues() throws {
        let directory = temporaryDirectory()
        let database = try openDatabase(directory)
        for user in ["a", "b"] {
            _ = try database.store.apply(
                mutation(
                    user, .increment(counter: "a_counter_key_longer_than_15_bytes", by: 1),
                    .setAttribute(key: "k", value: .string("a value longer than fifteen bytes"))))
        }
        try database.close()
        let later = try openDatabase(directory)
        defer { later.log.close() }
        func storage(_ text: String) -> UnsafeRawPointer? {
            text.utf8.withContiguousStorageIfAvailable { UnsafeRawPointer($0.baseAddress) } ?? nil
        }
        let (a, b) = (try #require(later.store.context(of: "a")), try #require(later.store.context(of: "b")))
        let (keyA, keyB) = (try #require(a.counters.entries.first?.key), try #require(b.counters.entries.first?.key))
        #expect(keyA == "a_counter_key_longer_than_15_bytes" && storage(keyA) != nil && storage(keyA) == storage(keyB))
        guard case .string(let valueA)? = a.attributes["k"], case .string(let valueB)? = b.attributes["k"] else {
            Issue.record("attributes lost: \(a.attributes) \(b.attributes)")
            return
        }
        #expect(valueA == valueB && storage(valueA) != storage(valueB))
    }

    /// Free heap pages are handed back as the records run out: at each power of two from 1 024 down, and at the end.
    @Test func freePages_areHandedBack_atEachHalvingAndTheLastRecord() {
        let releases = (0...1_000_000).filter { UserStore.releasesFreePages(recordsLeft: $0) }
        #expect(releases == [0, 1024, 2048, 4096, 8192, 16384, 32768, 65536, 131_072, 262_144, 524_288])
    }
}
