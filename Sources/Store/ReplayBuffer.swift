import Dispatch
import Rules

/// Recovery's records on their way into the shards' tables, applied a chunk at a time while the log is still being
/// read. The whole log used to be decoded into memory first and applied at the end: half a million records held as
/// `Mutation`s at once took their pages fresh from the kernel (zeroed, one fault each) and then freed them in one
/// go (the allocator coalescing every chunk): a fifth of a replay's profile, and out of the cache by the time they
/// were applied. A chunk's records are freed as it is applied, and the next chunk decodes into the memory they left.
///
/// Users in different shards are independent and each shard keeps the log's order, so a chunk's shards are applied
/// in parallel, and chunks one after another. Used by the one thread that recovers.
struct ReplayBuffer {
    /// Records held before they are applied. Small enough that a chunk's records are still in the cache when they
    /// are applied: pinned to one CPU, 500 000 single-counter records replayed at 0.80-0.95 M/s all at once, 0.9 M/s
    /// in chunks of 65 536, 1.0-1.1 M/s of 16 384 and 1.15-1.4 M/s of 4 096 (`specd-bench replay`).
    static let defaultChunk = 4_096

    private var buckets: [[Mutation]]
    private var queued = 0
    private let chunk: Int
    private let policy: HistoryPolicy

    init(shardCount: Int, policy: HistoryPolicy, chunk: Int = Self.defaultChunk) {
        buckets = Array(repeating: [], count: shardCount)
        self.chunk = max(1, chunk)
        self.policy = policy
    }

    /// Queues a recovered record for its user's shard; applies the chunk to `tables` once it is full.
    mutating func add(_ mutation: Mutation, into tables: inout [UserTable]) {
        buckets[UserStore.shardIndex(of: mutation.user, shardCount: buckets.count)].append(mutation)
        queued += 1
        if queued >= chunk { apply(to: &tables) }
    }

    /// Applies every queued record to `tables` (one per shard, as `UserStore.shardIndex` spreads users) and empties
    /// the buckets, keeping their room for the next chunk.
    mutating func apply(to tables: inout [UserTable]) {
        precondition(tables.count == buckets.count, "a table per shard")
        guard queued > 0 else { return }
        queued = 0
        let policy = policy
        tables.withUnsafeMutableBufferPointer { tables in
            buckets.withUnsafeMutableBufferPointer { buckets in
                // Each task touches only its own index of both buffers.
                nonisolated(unsafe) let tables = tables
                nonisolated(unsafe) let buckets = buckets
                DispatchQueue.concurrentPerform(iterations: tables.count) { index in
                    tables[index].replay(buckets[index], policy: policy)
                    buckets[index].removeAll(keepingCapacity: true)
                }
            }
        }
    }
}
