import Rules
import Testing

@testable import API

/// The ticket table alone, with a clock the test moves.
@Suite struct StreamTicketsTests {
    static let start = Instant(milliseconds: 1_773_144_000_000)
    static let key = StreamTickets.key(secrets: [Array("reader-secret-0123456789".utf8)])

    @Test func ticket_opensItsStreamOnce() throws {
        let tickets = StreamTickets(clock: ManualClock(Self.start), key: Self.key)
        let issued = tickets.issue(for: .user("u"))
        #expect(issued.expiresAt == Self.start + StreamTickets.lifetime)
        #expect(tickets.redeem(issued.ticket, for: .user("u")) == .accepted)
        #expect(tickets.redeem(issued.ticket, for: .user("u")) == .refused)
        #expect(tickets.spentCount == 1)
    }

    @Test func ticket_expiresAfterThirtySeconds() throws {
        let clock = ManualClock(Self.start)
        let tickets = StreamTickets(clock: clock, key: Self.key)
        let early = tickets.issue(for: .global)
        let late = tickets.issue(for: .global)
        clock.advance(StreamTickets.lifetime - 1)
        #expect(tickets.redeem(early.ticket, for: .global) == .accepted)
        clock.advance(1)
        #expect(tickets.redeem(late.ticket, for: .global) == .refused)
    }

    /// Bound to the user's bytes: a ticket for u's stream opens neither v's, nor the global one, nor an id that is
    /// the same text in another Unicode normalization; and a ticket tried on the wrong stream is spent.
    @Test func ticket_isBoundToItsStream() throws {
        let tickets = StreamTickets(clock: ManualClock(Self.start), key: Self.key)
        for wrong: StreamTarget in [.user("v"), .global, .openFeature("u"), .user("u ")] {
            let issued = tickets.issue(for: .user("u"))
            #expect(tickets.redeem(issued.ticket, for: wrong) == .refused, "\(wrong)")
            #expect(tickets.redeem(issued.ticket, for: .user("u")) == .refused)
        }
        let composed = tickets.issue(for: .user(ByteKey("caf\u{E9}")))
        #expect(tickets.redeem(composed.ticket, for: .user(ByteKey("cafe\u{301}"))) == .refused)
        let other = tickets.issue(for: .user("u"))
        #expect(tickets.redeem(other.ticket, for: nil) == .refused)
    }

    @Test(arguments: [
        "", "zz", String(repeating: "a", count: 63), String(repeating: "A", count: 82), String(repeating: "g", count: 64), "é",
        String(repeating: "A", count: 5_000)
    ])
    func redeem_malformedTicket_isRefused(text: String) throws {
        let tickets = StreamTickets(clock: ManualClock(Self.start), key: Self.key)
        #expect(tickets.redeem(text, for: .global) == .refused)
        #expect(tickets.spentCount == 0)
    }

    @Test func redeem_guessSharingNothing_leavesLiveTicketsAlone() throws {
        let tickets = StreamTickets(clock: ManualClock(Self.start), key: Self.key)
        let issued = tickets.issue(for: .global)
        #expect(tickets.redeem(String(repeating: "0", count: 64), for: .global) == .refused)
        #expect(tickets.redeem(issued.ticket, for: .global) == .accepted)
    }

    /// At the bound a redemption is answered busy (never forgetting a nonce that could then be replayed), with the
    /// seconds until the soonest remembered ticket expires; the busy ticket stays unspent, and once a remembered one
    /// has expired the table takes it.
    @Test func table_atItsBound_isBusyUntilTheSoonestExpires() throws {
        let clock = ManualClock(Self.start)
        let tickets = StreamTickets(clock: clock, key: Self.key, capacity: 3)
        for _ in 0..<3 { #expect(tickets.redeem(tickets.issue(for: .global).ticket, for: .global) == .accepted) }
        clock.advance(10_000)
        let waiting = tickets.issue(for: .global)
        #expect(tickets.redeem(waiting.ticket, for: .global) == .busy(retryAfterSeconds: 20))
        #expect(tickets.spentCount == 3)
        clock.advance(20_000)
        #expect(tickets.redeem(waiting.ticket, for: .global) == .accepted)
        #expect(tickets.redeem(waiting.ticket, for: .global) == .refused)
        #expect(tickets.spentCount <= 3)
    }

    /// A flood of issue-and-redeem (each ticket used at once) holds at most `capacity` nonces, and refuses every
    /// replay of a remembered one.
    @Test func table_floodOfIssueAndRedeem_staysBounded() throws {
        let clock = ManualClock(Self.start)
        let tickets = StreamTickets(clock: clock, key: Self.key, capacity: 4)
        for round in 0..<1_000 {
            let issued = tickets.issue(for: .user(ByteKey("u\(round)")))
            #expect(tickets.redeem(issued.ticket, for: .user(ByteKey("u\(round)"))) == .accepted)
            #expect(tickets.redeem(issued.ticket, for: .user(ByteKey("u\(round)"))) == .refused)
            #expect(tickets.spentCount <= 4)
            clock.advance(StreamTickets.lifetime / 4)
        }
    }

    @Test func tickets_areNotRepeated() throws {
        let tickets = StreamTickets(clock: ManualClock(Self.start), key: Self.key)
        var seen = Set<String>()
        for _ in 0..<1_000 { seen.insert(tickets.issue(for: .global).ticket) }
        #expect(seen.count == 1_000)
    }

    @Test(arguments: [
        ("/v1/stream", StreamTarget.global),
        ("/v1/stream?flags=a,b", .global),
        ("/v1/users/u1/stream", .user("u1")),
        ("/v1/users/a%2Fb/stream?include=context", .user("a/b")),
        ("/ofrep/v1/events?targetingKey=u1", .openFeature("u1")),
        ("/ofrep/v1/events", .openFeature(""))
    ])
    func target_fromPath(path: String, expected: StreamTarget) {
        #expect(StreamTarget(path: path) == expected)
    }

    @Test(arguments: ["", "/", "/v1/users/u1", "/v1/users//stream", "/v1/users/u1/flags", "/v1/users/a/b/stream", "/v1/users/%ZZ/stream", "v1/stream"]
    )
    func target_notAStream_isNil(path: String) {
        #expect(StreamTarget(path: path) == nil)
    }
}
