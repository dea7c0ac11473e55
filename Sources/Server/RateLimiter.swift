import Foundation
import HTTP
import Synchronization

/// A token bucket per client address: `rate` requests a second on average, up to `burst` at once. Over it the
/// answer is 429 with an integer `Retry-After` (DESIGN §5).
public final class RateLimiter: Sendable {
    struct Bucket {
        var tokens: Double
        var updated: ContinuousClock.Instant
    }

    public let rate: Double
    public let burst: Double
    private let buckets = Mutex<[String: Bucket]>([:])

    public init(rate: Double, burst: Double) {
        self.rate = rate
        self.burst = max(1, burst)
    }

    /// `nil` when the request may go on, else the 429 to answer.
    public func check(client: String, now: ContinuousClock.Instant = .now) -> APIError? {
        let wait: Double? = buckets.withLock { buckets in
            var bucket = buckets[client] ?? Bucket(tokens: burst, updated: now)
            let elapsed = now - bucket.updated
            bucket.tokens = min(burst, bucket.tokens + rate * (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18))
            bucket.updated = now
            defer {
                buckets[client] = bucket
                // Forget idle clients so the table stays bounded by the active ones.
                if buckets.count > 50_000 { buckets = buckets.filter { now - $0.value.updated < .seconds(60) } }
            }
            guard bucket.tokens >= 1 else { return (1 - bucket.tokens) / rate }
            bucket.tokens -= 1
            return nil
        }
        guard let wait else { return nil }
        let seconds = max(1, Int(wait.rounded(.up)))
        return APIError(.tooManyRequests, code: "rate_limited", message: "too many requests from this client; retry in \(seconds) s",
                        retryable: true, headers: ["Retry-After": String(seconds)])
    }

    /// The client's address without its port.
    static func client(of peer: String) -> String {
        guard let colon = peer.lastIndex(of: ":") else { return peer }
        return String(peer[..<colon])
    }
}
