import Synchronization

/// Forwarded exchanges in flight per owner, at most `limit` each (docs/cluster.md, "Routing and forwarding"). Each
/// blocks a thread until its owner answers or the timeout passes: without a bound, a member that accepts
/// connections but never answers would hold a thread per request sent its way, for the whole timeout.
///
/// Threads: any; one lock.
final class ForwardSlots: Sendable {
    let limit: Int
    private let inFlight: Mutex<[Int]>

    init(members: Int, limit: Int) {
        self.limit = limit
        inFlight = Mutex(Array(repeating: 0, count: members))
    }

    /// Takes a slot for an exchange with `owner`; `false` when `limit` are out already. Pair a `true` with `release`.
    func take(_ owner: Int) -> Bool {
        inFlight.withLock { counts in
            guard counts[owner] < limit else { return false }
            counts[owner] += 1
            return true
        }
    }

    func release(_ owner: Int) {
        inFlight.withLock { $0[owner] -= 1 }
    }

    func count(_ owner: Int) -> Int { inFlight.withLock { $0[owner] } }
}
