import HTTP
import Testing

@testable import API
@testable import Engine
@testable import HTTPServer
@testable import specd

@Suite struct RateLimiterTests {
    let t0 = MonotonicInstant(nanoseconds: 1_000_000_000)

    @Test func table_evictsTheLeastRecentlySeenClient() {
        let limiter = RateLimiter(rate: 1, burst: 5, capacity: 3, shards: 1)
        for client in ["a", "b", "c", "a", "d"] { _ = limiter.check(client: client, now: t0) }
        #expect(!limiter.isTracking("b"))
        #expect(["a", "c", "d"].allSatisfy(limiter.isTracking))
        _ = limiter.check(client: "e", now: t0)
        #expect(!limiter.isTracking("c"))
        #expect(limiter.trackedClients == 3)
    }

    @Test(arguments: [1, 4, 16])
    func table_staysWithinItsCapacity_underManyAddresses(shards: Int) {
        let limiter = RateLimiter(rate: 10, burst: 10, capacity: 4096, shards: shards)
        for index in 0..<20_000 { _ = limiter.check(client: "10.0.\(index / 256).\(index % 256)", now: t0) }
        #expect(limiter.trackedClients <= 4096)
        #expect(limiter.trackedClients >= 4096 - shards)
    }

    @Test func bucket_allowsTheBurstThenRefillsAtTheRate() {
        let limiter = RateLimiter(rate: 2, burst: 3, capacity: 10)
        for _ in 0..<3 { #expect(limiter.check(client: "a", now: t0) == nil) }
        let refused = limiter.check(client: "a", now: t0)
        #expect(refused?.status == .tooManyRequests)
        #expect(refused?.response.headers["Retry-After"] == "1")
        // Other clients have their own buckets.
        #expect(limiter.check(client: "b", now: t0) == nil)
        #expect(limiter.check(client: "a", now: t0 + .milliseconds(500)) == nil)
        #expect(limiter.check(client: "a", now: t0 + .milliseconds(700)) != nil)
        // Refilling stops at the burst.
        for _ in 0..<3 { #expect(limiter.check(client: "a", now: t0 + .seconds(100)) == nil) }
        #expect(limiter.check(client: "a", now: t0 + .seconds(100)) != nil)
    }

    @Test func retryAfter_isTheWholeSecondsUntilATokenIsBack() {
        let limiter = RateLimiter(rate: 0.1, burst: 1, capacity: 10)
        #expect(limiter.check(client: "a", now: t0) == nil)
        #expect(limiter.check(client: "a", now: t0)?.response.headers["Retry-After"] == "10")
        #expect(limiter.check(client: "a", now: t0 + .seconds(4))?.response.headers["Retry-After"] == "6")
    }

    /// A small table is not cut into shards: with 10 slots over 16 shards two clients could share a slot and
    /// evict each other with the table nearly empty (it failed CI about one run in five).
    @Test func smallTable_keepsEveryClientUpToItsCapacity() {
        for _ in 0..<50 {
            let limiter = RateLimiter(rate: 1, burst: 1, capacity: 10)
            let clients = (0..<10).map { "192.0.2.\($0)" }
            for client in clients { _ = limiter.check(client: client, now: t0) }
            #expect(clients.allSatisfy(limiter.isTracking))
        }
    }

    /// An evicted client starts again with a full bucket, as a client idle long enough to refill would.
    @Test func evictedClient_comesBackWithAFullBucket() {
        let limiter = RateLimiter(rate: 1, burst: 2, capacity: 1, shards: 1)
        _ = limiter.check(client: "a", now: t0)
        _ = limiter.check(client: "a", now: t0)
        #expect(limiter.check(client: "a", now: t0) != nil)
        _ = limiter.check(client: "b", now: t0)
        #expect(!limiter.isTracking("a"))
        #expect(limiter.check(client: "a", now: t0) == nil)
    }
}
