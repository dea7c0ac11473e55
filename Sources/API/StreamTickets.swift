import Engine
import Rules
import Synchronization

/// One-time stream tickets (docs/api.md, "Stream tickets"): `EventSource` cannot send `Authorization`, and a token
/// must never sit in a URL (logs, history, referrers keep URLs), so a page trades its token for a ticket that opens
/// one stream once, within 30 seconds.
///
/// A ticket is signed, not stored (`StreamTicket`): every replica of a cluster derives the same key from the
/// configured token secrets, so a ticket issued on one opens its stream on whichever replica the stream request
/// reaches (README, "Cluster mode"). Tickets are never logged.
///
/// One use: a replica remembers the nonce of every ticket presented to it until the ticket expires. The table is
/// bounded: at most `capacity` nonces; expired ones are swept when it fills, and past the bound a redemption is
/// answered "busy" (the ticket stays unspent, to be presented again) rather than forgetting a nonce that could then
/// be replayed. In a cluster a ticket is presented to one replica only: a user stream is redeemed by the user's
/// owner (forwarders pass `?ticket=` on untouched), the merged global stream by the replica the client reached,
/// which opens every member's own stream with a fresh ticket of its own.
public final class StreamTickets: Sendable {
    /// How long a ticket stays valid.
    public static let lifetime: Milliseconds = 30_000
    /// How long a ticket for one member's stream stays valid: sent the moment it is made, over the cluster's network.
    static let memberLifetime: Milliseconds = 15_000

    /// What presenting a ticket came to.
    enum Redemption: Equatable {
        case accepted
        /// Unknown, forged, expired, already used or for another stream.
        case refused
        /// `capacity` nonces are remembered and none has expired: the ticket is not spent, present it again later.
        case busy(retryAfterSeconds: Int)
    }

    let capacity: Int
    let key: [UInt8]
    private let clock: WallClock
    /// Nonces presented, with the expiry of their ticket.
    private let spent = Mutex([[UInt8]: Instant]())

    public init(clock: WallClock, key: [UInt8], capacity: Int = 10_000) {
        self.clock = clock
        self.key = key
        self.capacity = max(1, capacity)
    }

    /// Remembered nonces, expired ones not yet swept included.
    var spentCount: Int { spent.withLock { $0.count } }

    /// The key every replica configured with the same tokens derives alike: HMAC-SHA256 under a fixed label over
    /// the secrets, sorted and each length-prefixed (so no two lists give one message). With no tokens there is no
    /// auth to protect — every stream opens without a ticket — and the key is the label's own, the same everywhere,
    /// so tickets still work across a cluster for pages that always ask for one.
    public static func key(secrets: [[UInt8]]) -> [UInt8] {
        var message: [UInt8] = []
        for secret in secrets.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
            withUnsafeBytes(of: UInt64(secret.count).bigEndian) { message.append(contentsOf: $0) }
            message += secret
        }
        return HMAC.sha256(key: Array("specd stream tickets v1".utf8), message: message)
    }

    /// The key for `tokens`.
    public static func key(tokens: [Token]) -> [UInt8] { key(secrets: tokens.map(\.secret)) }

    func issue(for target: StreamTarget, lifetime: Milliseconds = StreamTickets.lifetime) -> (ticket: String, expiresAt: Instant) {
        let expires = clock.now() + lifetime
        return (StreamTicket(target: target, expires: expires).signed(key: key), expires)
    }

    /// A ticket for one member's own global stream, made by the replica merging them.
    func issueForMember() -> String {
        StreamTicket(target: .global, expires: clock.now() + Self.memberLifetime, isForMember: true).signed(key: key)
    }

    /// Whether the ticket is genuine, live, unused and bound to this target. A genuine live ticket is spent whatever
    /// the answer, so a ticket tried on the wrong stream cannot be tried again on the right one.
    func redeem(_ text: String, for target: StreamTarget?) -> Redemption {
        guard let ticket = StreamTicket(verifying: text, key: key) else { return .refused }
        let now = clock.now()
        guard now < ticket.expires else { return .refused }
        let refusal: Redemption? = spent.withLock { spent in
            guard spent[ticket.nonce] == nil else { return .refused }
            if spent.count >= capacity { spent = spent.filter { $0.value > now } }
            guard spent.count < capacity else {
                let soonest = spent.values.min() ?? now
                return .busy(retryAfterSeconds: Int(max(1, (soonest - now + 999) / 1000)))
            }
            spent[ticket.nonce] = ticket.expires
            return nil
        }
        if let refusal { return refusal }
        return ticket.target == target ? .accepted : .refused
    }
}
