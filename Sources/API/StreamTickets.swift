import Engine
import Rules
import Synchronization

/// One-time stream tickets (docs/api.md, "Stream tickets"): `EventSource` cannot send `Authorization`, and a token
/// must never sit in a URL (logs, history, referrers keep URLs), so a page trades its token for a ticket that opens
/// one stream once, within 30 seconds.
///
/// A ticket is 32 bytes from `SystemRandomNumberGenerator` (the kernel's `getrandom(2)` on Linux), in hex: the first
/// 8 bytes select the entry (a dictionary lookup, whose timing may only say whether that selector exists), the other
/// 24 are compared in constant time, so no response time tells how much of a live ticket a guess got right. Tickets
/// are never logged.
///
/// The table is bounded: at most `capacity` live tickets; expired ones are swept on every issue (oldest first, in
/// the order they were issued, which is the order they expire), and past the bound an issue is refused rather
/// than growing the table or evicting a ticket someone is about to present.
public final class StreamTickets: Sendable {
    /// How long a ticket stays valid.
    public static let lifetime: Milliseconds = 30_000

    struct Entry {
        let verifier: [UInt8]
        let target: StreamTarget
        let expires: Instant
    }

    struct State {
        var entries: [UInt64: Entry] = [:]
        /// Selectors in issue order with their expiry; redeemed ones stay until swept or compacted.
        var order: [(selector: UInt64, expires: Instant)] = []
        var head = 0
    }

    /// Why no ticket was issued.
    enum IssueError: Error, Equatable {
        /// `capacity` tickets are live; the oldest expires in this many seconds.
        case full(retryAfterSeconds: Int)
    }

    let capacity: Int
    private let clock: WallClock
    private let state = Mutex(State())

    public init(clock: WallClock, capacity: Int = 10_000) {
        self.clock = clock
        self.capacity = max(1, capacity)
    }

    /// Live (issued, not yet redeemed or swept) tickets.
    var count: Int { state.withLock { $0.entries.count } }

    /// Entries held for the sweep, live or not: bounded by twice the capacity.
    var orderCount: Int { state.withLock { $0.order.count - $0.head } }

    func issue(for target: StreamTarget) throws(IssueError) -> (ticket: String, expiresAt: Instant) {
        var generator = SystemRandomNumberGenerator()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        for _ in 0..<4 { withUnsafeBytes(of: generator.next() as UInt64) { bytes.append(contentsOf: $0) } }
        let selector = bytes[0..<8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let now = clock.now()
        let expires = now + Self.lifetime
        let refusal: IssueError? = state.withLock { state in
            Self.sweep(&state, now: now)
            guard state.entries.count < capacity else {
                let oldest = state.order[state.head...].first { state.entries[$0.selector] != nil }?.expires ?? expires
                return .full(retryAfterSeconds: Int(max(1, (oldest - now + 999) / 1000)))
            }
            // A selector collision (2^-64 a pair) must not replace a live ticket: the caller asks again.
            guard state.entries[selector] == nil else { return .full(retryAfterSeconds: 1) }
            state.entries[selector] = Entry(verifier: Array(bytes[8...]), target: target, expires: expires)
            state.order.append((selector, expires))
            if state.order.count - state.head > 2 * capacity { Self.compact(&state) }
            return nil
        }
        if let refusal { throw refusal }
        return (Self.hex(bytes), expires)
    }

    /// Whether the ticket is live and bound to this target; a presented ticket is spent whatever the answer, so a
    /// ticket tried on the wrong stream cannot be tried again on the right one.
    func redeem(_ ticket: String, for target: StreamTarget?) -> Bool {
        guard ticket.utf8.count == 64, let bytes = Self.bytes(hex: ticket) else { return false }
        let selector = bytes[0..<8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let now = clock.now()
        guard let entry = state.withLock({ $0.entries.removeValue(forKey: selector) }) else { return false }
        return Authenticator.constantTimeEquals(entry.verifier, Array(bytes[8...])) && now < entry.expires && entry.target == target
    }

    /// Drops expired tickets from the front of the issue order.
    private static func sweep(_ state: inout State, now: Instant) {
        while state.head < state.order.count, state.order[state.head].expires <= now {
            let selector = state.order[state.head].selector
            if let entry = state.entries[selector], entry.expires <= now { state.entries[selector] = nil }
            state.head += 1
        }
        if state.head > 0, state.head * 2 >= state.order.count {
            state.order.removeFirst(state.head)
            state.head = 0
        }
    }

    /// Keeps only the live tickets in the issue order: redeemed ones would otherwise stay until they expire, and a
    /// flood of issue-and-redeem could grow the order without bound.
    private static func compact(_ state: inout State) {
        let entries = state.entries
        state.order = state.order[state.head...].filter { entries[$0.selector]?.expires == $0.expires }
        state.head = 0
    }

    private static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    private static func bytes(hex text: String) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count / 2)
        var index = 0
        while index < utf8.count {
            guard let high = nibble(utf8[index]), let low = nibble(utf8[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    private static func nibble(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}
