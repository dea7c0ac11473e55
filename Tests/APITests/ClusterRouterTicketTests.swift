import Engine
import Foundation
import HTTP
import HTTPServer
import Rules
import Synchronization
import Testing

@testable import API

/// Where the cluster router presents a stream ticket, with a transport double: no sockets.
@Suite struct ClusterRouterTicketTests {
    typealias FakeTransport = ClusterRouterTests.FakeTransport
    static let members = ClusterRouterTests.members
    static let tickets = StreamTickets(
        clock: ManualClock(Instant(milliseconds: 1_773_144_000_000)), key: StreamTickets.key(secrets: [Array("admin-secret".utf8)]))

    /// A client's ticket for `target` whose nonce `member` owns among the three.
    static func ticket(for target: StreamTarget, redeemedBy member: Int) -> String {
        while true {
            let text = tickets.issue(for: target).ticket
            if let ticket = StreamTicket(verifying: text, key: tickets.key),
                ClusterMembership.owner(of: HMAC.hex(ticket.nonce), memberCount: 3) == member
            {
                return text
            }
        }
    }

    func respond(_ target: String, transport: FakeTransport, tickets: StreamTickets = Self.tickets) -> HTTPResponse? {
        let peers = ClusterPeers(membership: ClusterMembership(selfIndex: 0, members: Self.members), transport: transport)
        let router = ClusterRouter(
            router: ClusterRouterTests.LocalResponder(), peers: peers, transport: transport, metrics: Metrics(), tickets: tickets)
        let answer = Mutex<HTTPResponse?>(nil)
        let done = DispatchSemaphore(value: 0)
        router.respond(
            to: Request(head: HTTPRequestHead(method: "GET", target: target), body: [], id: "rid-1"),
            sink: .capturing { response in
                answer.withLock { $0 = response }
                done.signal()
            })
        _ = done.wait(timeout: .now() + 5)
        return answer.withLock { $0 }
    }

    /// A user's stream goes to the owner with `?ticket=` as the client sent it; the forwarder spends nothing.
    @Test func userStreamTicket_isForwardedUntouched_andNotRedeemedByTheForwarder() {
        let tickets = StreamTickets(clock: ManualClock(Instant(milliseconds: 1_773_144_000_000)), key: Self.tickets.key)
        let user = ClusterRouterTests.user(ownedBy: 2)
        let ticket = tickets.issue(for: .user(ByteKey(user))).ticket
        let transport = FakeTransport()
        _ = respond("/v1/users/\(user)/stream?ticket=\(ticket)&include=context", transport: transport, tickets: tickets)
        #expect(transport.asked.withLock { $0.map(\.1) } == ["http://m2:80"])
        #expect(transport.asked.withLock { $0.first?.0.target } == "/v1/users/\(user)/stream?ticket=\(ticket)&include=context")
        #expect(tickets.spentCount == 0)
    }

    /// OpenFeature's keyless stream belongs to no user: a ticket for it goes to the member owning its nonce.
    @Test func keylessStreamTicket_isForwardedToTheMemberOwningItsNonce() {
        let ticket = Self.ticket(for: .openFeature(""), redeemedBy: 1)
        let transport = FakeTransport()
        _ = respond("/ofrep/v1/events?ticket=\(ticket)", transport: transport)
        #expect(transport.asked.withLock { $0.map(\.1) } == ["http://m1:80"])
        #expect(transport.asked.withLock { $0.first?.0.target } == "/ofrep/v1/events?ticket=\(ticket)")
    }

    /// The merged stream's ticket is presented to the member owning its nonce first; its refusal is the answer, and
    /// no member's stream is opened.
    @Test func mergedStreamTicket_refusedByItsRedeemer_relaysTheRefusal() {
        let ticket = Self.ticket(for: .global, redeemedBy: 2)
        let transport = FakeTransport(answer: ClusterTransportResponse(status: .unauthorized, headers: [:], body: Array("spent".utf8)))
        let response = respond("/v1/stream?ticket=\(ticket)", transport: transport)
        #expect(response?.status.code == 401)
        #expect(response?.body == Array("spent".utf8))
        #expect(transport.asked.withLock { $0.map(\.1) } == ["http://m2:80"])
        #expect(transport.asked.withLock { $0.first?.0.target } == "/v1/stream?ticket=\(ticket)")
    }

    @Test func mergedStreamTicket_redeemerUnreachable_is503() {
        let ticket = Self.ticket(for: .global, redeemedBy: 1)
        let response = respond("/v1/stream?ticket=\(ticket)", transport: FakeTransport(failure: .unreachable("refused")))
        #expect(response?.status.code == 503)
        #expect(response.map { String(decoding: $0.body, as: UTF8.self).contains("ticket_redeemer_unreachable") } == true)
    }

    /// Redeemed here when this member owns the nonce: a forged or spent ticket is refused before any member is asked.
    @Test func mergedStreamTicket_redeemedHere_isRefusedOnItsSecondUse() {
        let tickets = StreamTickets(clock: ManualClock(Instant(milliseconds: 1_773_144_000_000)), key: Self.tickets.key)
        let ticket = Self.ticket(for: .global, redeemedBy: 0)
        #expect(tickets.redeem(ticket, for: .global) == .accepted)
        let transport = FakeTransport()
        #expect(respond("/v1/stream?ticket=\(ticket)", transport: transport, tickets: tickets)?.status.code == 401)
        #expect(respond("/v1/stream?ticket=forged", transport: transport, tickets: tickets)?.status.code == 401)
        #expect(transport.asked.withLock { $0.isEmpty })
    }

    @Test(arguments: [
        ("/v1/stream", "/v1/stream?ticket=T"), ("/v1/stream?ticket=old", "/v1/stream?ticket=T"),
        ("/v1/stream?flags=a&ticket=old&include=context", "/v1/stream?ticket=T&flags=a&include=context"),
        ("/v1/stream?tick%65t=old&ticket=x", "/v1/stream?ticket=T")
    ])
    func memberTarget_replacesEveryTicket(target: String, expected: String) {
        #expect(MergedGlobalStream.target(target, withTicket: "T") == expected)
    }
}
