import Foundation
import Testing

@testable import Rules
@testable import Store

/// `UserStore.contextChanges`: the count a reader compares instead of reading a user's context again (the answer
/// cache). Every write to the user's shard raises it; reads, refused writes and other shards' writes do not.
@Suite struct ContextChangesTests {
    @Test func everyWriteToTheUsersShard_raisesTheCount_readsAndRefusedWritesDoNot() throws {
        let store = UserStore(shardCount: 2, limits: ContextLimits(maxCounters: 1))
        // Two users in one shard, one in the other.
        let users = (0..<64).map { "user-\($0)" }
        let first = users[0]
        let shard = UserStore.shardIndex(of: first, shardCount: 2)
        let sameShard = try #require(users.dropFirst().first { UserStore.shardIndex(of: $0, shardCount: 2) == shard })
        let otherShard = try #require(users.first { UserStore.shardIndex(of: $0, shardCount: 2) != shard })
        let start = store.contextChanges(of: first)
        _ = try store.apply(mutation(first, .increment(counter: "a", by: 1)))
        let afterWrite = store.contextChanges(of: first)
        #expect(afterWrite != start)
        // Reads leave it.
        _ = store.context(of: first)
        _ = store.context(of: sameShard)
        #expect(store.contextChanges(of: first) == afterWrite)
        // A write to another user of the shard raises it too (the count is the shard's), one in the other shard not.
        _ = try store.apply(mutation(otherShard, .increment(counter: "a", by: 1)))
        #expect(store.contextChanges(of: first) == afterWrite)
        _ = try store.apply(mutation(sameShard, .increment(counter: "a", by: 1)))
        let afterNeighbour = store.contextChanges(of: first)
        #expect(afterNeighbour != afterWrite)
        // A write the limits refuse changes nothing, count included.
        #expect(throws: StoreError.self) { try store.apply(mutation(first, .increment(counter: "b", by: 1))) }
        #expect(store.contextChanges(of: first) == afterNeighbour)
        // Erasing is a write.
        _ = try store.apply(mutation(first, .erase))
        #expect(store.context(of: first) == nil)
        #expect(store.contextChanges(of: first) != afterNeighbour)
    }

    /// Raised under the lock, after the table changed: a count read before two context reads and found again
    /// after them says both found one context, however writers race the reader.
    @Test func aCountThatStaysTheSame_meansTheSameContext_underConcurrentWrites() throws {
        let store = UserStore(shardCount: 1)
        let user = "racer"
        _ = try store.apply(mutation(user, .increment(counter: "a", by: 1)))
        let writes = 2_000
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            for _ in 0..<writes { _ = try? store.apply(mutation(user, .increment(counter: "a", by: 1))) }
            done.signal()
        }
        var unchanged = 0
        for _ in 0..<200_000 {
            let before = store.contextChanges(of: user)
            let context = store.context(of: user)
            let again = store.context(of: user)
            let after = store.contextChanges(of: user)
            if before == after {
                unchanged += 1
                #expect(context?.counters["a"] == again?.counters["a"])
            }
            if again?.counters["a"] == writes + 1 { break }
        }
        #expect(done.wait(timeout: .now() + 30) == .success)
        #expect(store.context(of: user)?.counters["a"] == writes + 1)
        #expect(unchanged > 0)
    }
}
