import Rules
import Testing

@testable import API

/// The ticket table alone, with a clock the test moves.
@Suite struct StreamTicketsTests {
    static let start = Instant(milliseconds: 1_773_144_000_000)

    @Test func ticket_opensItsStreamOnce() throws {
        let tickets = StreamTickets(clock: ManualClock(Self.start))
        let issued = try tickets.issue(for: .user("u"))
        #expect(issued.ticket.utf8.count == 64)
        #expect(issued.expiresAt == Self.start + StreamTickets.lifetime)
        #expect(tickets.redeem(issued.ticket, for: .user("u")))
        #expect(!tickets.redeem(issued.ticket, for: .user("u")))
        #expect(tickets.count == 0)
    }

    @Test func ticket_expiresAfterThirtySeconds() throws {
        let clock = ManualClock(Self.start)
        let tickets = StreamTickets(clock: clock)
        let early = try tickets.issue(for: .global)
        let late = try tickets.issue(for: .global)
        clock.advance(StreamTickets.lifetime - 1)
        #expect(tickets.redeem(early.ticket, for: .global))
        clock.advance(1)
        #expect(!tickets.redeem(late.ticket, for: .global))
    }

    /// Bound to the user's bytes: a ticket for u's stream opens neither v's, nor the global one, nor an id that is
    /// the same text in another Unicode normalization; and a ticket tried on the wrong stream is spent.
    @Test func ticket_isBoundToItsStream() throws {
        let tickets = StreamTickets(clock: ManualClock(Self.start))
        for wrong: StreamTarget in [.user("v"), .global, .openFeature("u"), .user("u ")] {
            let issued = try tickets.issue(for: .user("u"))
            #expect(!tickets.redeem(issued.ticket, for: wrong), "\(wrong)")
            #expect(!tickets.redeem(issued.ticket, for: .user("u")))
        }
        let composed = try tickets.issue(for: .user(ByteKey("caf\u{E9}")))
        #expect(!tickets.redeem(composed.ticket, for: .user(ByteKey("cafe\u{301}"))))
        let other = try tickets.issue(for: .user("u"))
        #expect(!tickets.redeem(other.ticket, for: nil))
    }

    @Test(arguments: ["", "zz", String(repeating: "a", count: 63), String(repeating: "A", count: 64), String(repeating: "g", count: 64), "é"])
    func redeem_malformedTicket_isRefused(text: String) throws {
        let tickets = StreamTickets(clock: ManualClock(Self.start))
        _ = try tickets.issue(for: .global)
        #expect(!tickets.redeem(text, for: .global))
        #expect(tickets.count == 1)
    }

    @Test func redeem_guessSharingNothing_leavesLiveTicketsAlone() throws {
        let tickets = StreamTickets(clock: ManualClock(Self.start))
        let issued = try tickets.issue(for: .global)
        #expect(!tickets.redeem(String(repeating: "0", count: 64), for: .global))
        #expect(tickets.redeem(issued.ticket, for: .global))
    }

    /// At the bound an issue is refused (never evicting a ticket about to be used), with the seconds until the
    /// oldest expires; once it has, issuing works again and the table never holds more than the bound.
    @Test func table_atItsBound_refusesUntilTheOldestExpires() throws {
        let clock = ManualClock(Self.start)
        let tickets = StreamTickets(clock: clock, capacity: 3)
        for _ in 0..<3 { _ = try tickets.issue(for: .global) }
        clock.advance(10_000)
        #expect(throws: StreamTickets.IssueError.full(retryAfterSeconds: 20)) { try tickets.issue(for: .global) }
        #expect(tickets.count == 3)
        clock.advance(20_000)
        for _ in 0..<3 { _ = try tickets.issue(for: .global) }
        #expect(tickets.count == 3)
        #expect(tickets.orderCount <= 6)
    }

    /// A flood of issue-and-redeem (each ticket used at once) must not grow the sweep's list either.
    @Test func table_floodOfIssueAndRedeem_staysBounded() throws {
        let tickets = StreamTickets(clock: ManualClock(Self.start), capacity: 4)
        for round in 0..<1_000 {
            let issued = try tickets.issue(for: .user(ByteKey("u\(round)")))
            #expect(tickets.redeem(issued.ticket, for: .user(ByteKey("u\(round)"))))
            #expect(tickets.orderCount <= 8)
        }
        #expect(tickets.count == 0)
    }

    @Test func tickets_areNotRepeated() throws {
        let tickets = StreamTickets(clock: ManualClock(Self.start), capacity: 1_000)
        var seen = Set<String>()
        for _ in 0..<1_000 { seen.insert(try tickets.issue(for: .global).ticket) }
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
