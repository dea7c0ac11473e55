import Foundation
import Rules
import StoreFixtures
import TestRandom
import Testing

@testable import Store

/// Recovery applies the log a chunk at a time while it reads it: whatever the chunk, every user ends as the log
/// applied in order makes them, erasures and refused records included, and a restart reads back what was written.
@Suite struct ReplayBufferTests {
    /// Random records over forty users (an erase now and then) in sixteen shards, through chunks of every size
    /// from one record to all of them: the same tables as one table applying the whole log in order.
    @Test(arguments: [1, 5, 64, 1_000_000])
    func anyChunk_endsWithTheStateOfTheLogAppliedInOrder(chunk: Int) {
        var generator = SplitMix(seed: 31)
        var mutations: [Mutation] = []
        for step in 0..<4_000 {
            let now = t0 + Int64(step * 1_000)
            let user = "user-\(generator.next(upTo: 40))"
            let actions = generator.next(upTo: 50) == 0 ? [Action.erase] : (0...generator.next(upTo: 2)).map { _ in generator.action(now: now) }
            mutations.append(Mutation(user: user, now: now, actions: actions))
        }
        var reference = UserTable()
        reference.replay(mutations, policy: HistoryPolicy())
        var tables = [UserTable](repeating: UserTable(), count: 16)
        var buffer = ReplayBuffer(shardCount: 16, policy: HistoryPolicy(), chunk: chunk)
        for mutation in mutations { buffer.add(mutation, into: &tables) }
        buffer.apply(to: &tables)
        var replayed: [ByteKey: UserContext] = [:]
        for (index, table) in tables.enumerated() {
            for (user, context) in table.decodedUsers {
                #expect(UserStore.shardIndex(of: user.string, shardCount: 16) == index, "\(user.string) in the wrong shard")
                replayed[user] = context
            }
        }
        #expect(replayed == reference.decodedUsers)
        #expect(!replayed.isEmpty)
    }

    /// More records after a snapshot than one chunk holds, for users held as snapshot records and for new ones:
    /// a restart has every user as the live store had them.
    @Test func restart_pastSeveralChunks_readsBackEveryUser() throws {
        let directory = temporaryDirectory()
        let records = ReplayBuffer.defaultChunk * 2 + 500
        var expected: [String: UserContext] = [:]
        do {
            let database = try Database(options: .init(directory: directory, fsync: .never, snapshotEvery: 1_000_000_000))
            for index in 0..<300 { _ = try database.writeAndWait(mutation("user-\(index)", .setCounter(counter: "k", value: index))) }
            try database.takeSnapshot()
            for index in 0..<records {
                let user = "user-\(index % 600)"
                _ = try database.writeAndWait(mutation(user, .increment(counter: "k", by: 1), .setFlag(flag: "f\(index % 3)", value: index % 2 == 0)))
            }
            for index in 0..<600 { expected["user-\(index)"] = database.store.context(of: "user-\(index)") }
            database.log.close()
        }
        let recovered = try Database(options: .init(directory: directory, fsync: .never))
        defer { recovered.log.close() }
        #expect(recovered.recovery.replayedRecords == records)
        #expect(recovered.store.userCount == 600)
        for index in 0..<600 {
            #expect(recovered.store.context(of: "user-\(index)") == expected["user-\(index)"], "user-\(index)")
        }
    }
}
