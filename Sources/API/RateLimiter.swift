import Engine
import Foundation
import HTTP
import HTTPServer
import Rules
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A token bucket per client address: `rate` requests a second on average, up to `burst` at once. Over it the
/// answer is 429 with an integer `Retry-After` (see the README's limits).
///
/// The table is bounded: past `capacity` addresses the least recently seen one is forgotten, which costs it
/// nothing it would not regain by waiting (a forgotten client starts again with a full bucket, as an idle one
/// would). Every request is O(1): one hash lookup and a move to the front of an intrusive list, under the lock
/// of one of several shards, never a scan of the table.
public final class RateLimiter: Sendable {
    struct Bucket {
        var tokens: Double
        var updated: MonotonicInstant
    }

    public let rate: Double
    public let burst: Double
    private let shards: [Shard]
    static let minimumShardCapacity = 256

    /// `capacity`: client addresses remembered at once, split evenly over `shards` locks.
    public init(rate: Double, burst: Double, capacity: Int = 100_000, shards: Int = 16) {
        self.rate = rate
        self.burst = max(1, burst)
        // A shard forgets its own least recently seen client: small tables stay whole, or two clients sharing a
        // shard of capacity 1 would evict each other with the table nearly empty.
        let count = max(1, min(shards, capacity / Self.minimumShardCapacity))
        self.shards = (0..<count).map { _ in Shard(capacity: max(1, capacity / count)) }
    }

    /// `nil` when the request may go on, else the 429 to answer.
    public func check(client: String, now: MonotonicInstant = .now) -> APIError? {
        let (rate, burst) = (self.rate, self.burst)
        let wait: Double? = shard(for: client).table.withLock { table in
            let slot = table.touch(client, fresh: Bucket(tokens: burst, updated: now))
            var bucket = table.entries[slot].bucket
            let elapsed = now - bucket.updated
            bucket.tokens = min(burst, bucket.tokens + rate * elapsed.inSeconds)
            bucket.updated = now
            defer { table.entries[slot].bucket = bucket }
            guard bucket.tokens >= 1 else { return (1 - bucket.tokens) / rate }
            bucket.tokens -= 1
            return nil
        }
        guard let wait else { return nil }
        // Clamped before the conversion: a tiny rate must not make `Int(Double)` trap.
        let seconds = Int(min(max(1, wait.rounded(.up)), 86_400))
        return APIError(
            .tooManyRequests, code: "rate_limited", message: "too many requests from this client; retry in \(seconds) s",
            field: "limits.requestsPerSecondPerClient", retryable: true, headers: ["Retry-After": String(seconds)])
    }

    /// Client addresses remembered now, across shards.
    public var trackedClients: Int { shards.reduce(0) { total, shard in total + shard.table.withLock { $0.index.count } } }

    func isTracking(_ client: String) -> Bool { shard(for: client).table.withLock { $0.index[client] != nil } }

    private func shard(for client: String) -> Shard {
        shards.count == 1 ? shards[0] : shards[Int(UInt(bitPattern: client.hashValue) % UInt(shards.count))]
    }

    /// The client's address without its port.
    static func client(of peer: String) -> String {
        guard let colon = peer.lastIndex(of: ":") else { return peer }
        return String(peer[..<colon])
    }

    private final class Shard: Sendable {
        let table: Mutex<Table>
        init(capacity: Int) { table = Mutex(Table(capacity: capacity)) }
    }

    /// A fixed-capacity map from client to bucket, ordered by last use through `newer`/`older` slot links.
    struct Table {
        struct Entry {
            var client: String
            var bucket: Bucket
            var newer: Int
            var older: Int
        }

        let capacity: Int
        var index: [String: Int] = [:]
        var entries: [Entry] = []
        var newest = -1
        var oldest = -1

        init(capacity: Int) {
            self.capacity = capacity
            index.reserveCapacity(min(capacity, 4096))
        }

        /// The slot of `client`'s bucket, now the most recently seen; a new client gets `fresh`, in a new slot or
        /// in the least recently seen client's when the table is full.
        mutating func touch(_ client: String, fresh: Bucket) -> Int {
            if let slot = index[client] {
                if slot != newest {
                    unlink(slot)
                    pushNewest(slot)
                }
                return slot
            }
            let slot: Int
            if entries.count < capacity {
                slot = entries.count
                entries.append(Entry(client: client, bucket: fresh, newer: -1, older: -1))
            } else {
                slot = oldest
                unlink(slot)
                index[entries[slot].client] = nil
                entries[slot].client = client
                entries[slot].bucket = fresh
            }
            index[client] = slot
            pushNewest(slot)
            return slot
        }

        private mutating func unlink(_ slot: Int) {
            let (newer, older) = (entries[slot].newer, entries[slot].older)
            if newer >= 0 { entries[newer].older = older } else { newest = older }
            if older >= 0 { entries[older].newer = newer } else { oldest = newer }
        }

        private mutating func pushNewest(_ slot: Int) {
            entries[slot].newer = -1
            entries[slot].older = newest
            if newest >= 0 { entries[newest].newer = slot }
            newest = slot
            if oldest < 0 { oldest = slot }
        }
    }
}
