import API
import Engine
import Foundation
import HTTP
import HTTPServer
import Synchronization
import Testing

@testable import API

/// What a replica does with a member that answers badly, and with a client's resume of the merged stream: relayed
/// refusals are bounded, a forwarded HEAD states the GET's length, `?lastEventId=` is a vector split per member.
@Suite struct ClusterRouterHostilePeerTests {
    typealias Fake = ClusterRouterTests.FakeTransport

    /// Refuses every stream (401) with a body that never ends, a chunk at a time, for as long as it is read (at
    /// most `limit` chunks, so a test that fails ends).
    final class EndlessRefusal: ClusterTransport, Sendable {
        let chunks = Mutex(0)
        let limit = 10_000

        func send(
            _ request: ClusterTransportRequest, to member: ClusterMembership.Member, timeout: Duration
        ) throws(ClusterTransportError) -> ClusterTransportResponse {
            throw .unreachable("not asked")
        }

        func stream(
            _ request: ClusterTransportRequest, to member: ClusterMembership.Member, connectTimeout: Duration,
            onHead: (ClusterTransportResponse) -> Bool, onBody: ([UInt8]) -> Bool
        ) throws(ClusterTransportError) {
            guard onHead(ClusterTransportResponse(status: HTTPStatus(code: 401, reason: "Unauthorized"), headers: [:])) else { return }
            let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 16 << 10)
            while chunks.withLock({ $0 }) < limit {
                chunks.withLock { $0 += 1 }
                if !onBody(chunk) { return }
            }
        }
    }

    func respond(_ method: String, _ target: String, headers: HTTPHeaders = [:], transport: ClusterTransport) -> HTTPResponse? {
        ClusterRouterTests().respond(method, target, headers: headers, transport: transport)
    }

    @Test func relayedStreamRefusal_withEndlessBody_is502AfterTheBound() {
        let transport = EndlessRefusal()
        let response = respond("GET", "/v1/users/\(ClusterRouterTests.user(ownedBy: 1))/stream", transport: transport)
        #expect(response?.status.code == 502)
        #expect(response.map { String(decoding: $0.body, as: UTF8.self).contains("member_answer_too_large") } == true)
        // 64 KiB in 16 KiB chunks: the fifth is refused and nothing after it is read.
        #expect(transport.chunks.withLock { $0 } == 5)
    }

    @Test func mergedStreamRefusal_withEndlessBody_is502AfterTheBound() {
        let transport = EndlessRefusal()
        let response = respond("GET", "/v1/stream", transport: transport)
        #expect(response?.status.code == 502)
        #expect(transport.chunks.withLock { $0 } == 5)
    }

    @Test func refusalUnderTheBound_isRelayedWhole() {
        var refusal: HTTPResponse? = HTTPResponse(status: HTTPStatus(code: 401, reason: "Unauthorized"))
        let body = [UInt8](repeating: 1, count: ClusterRouter.maxRefusalBytes)
        #expect(ClusterRouter.accumulate(body, into: &refusal, from: 2))
        #expect(refusal?.status.code == 401)
        #expect(refusal?.body.count == ClusterRouter.maxRefusalBytes)
        #expect(!ClusterRouter.accumulate([1], into: &refusal, from: 2))
        #expect(refusal?.status.code == 502)
    }

    /// The owner's HEAD answer has no body and its Content-Length is framing this connection writes: asked as GET,
    /// the relayed answer carries the body whose length this connection's HEAD answer then states.
    @Test func forwardedHEAD_isAskedAsGET_exceptOnAStreamRoute() {
        let user = ClusterRouterTests.user(ownedBy: 2)
        let transport = Fake(answer: ClusterTransportResponse(status: .ok, headers: [:], body: Array("{\"flags\":{}}".utf8)))
        let response = respond("HEAD", "/v1/users/\(user)/flags", transport: transport)
        #expect(response?.body.count == 12)
        #expect(transport.asked.withLock { $0.map(\.0.method) } == ["GET"])
        let streams = Fake()
        _ = respond("HEAD", "/v1/users/\(user)/stream", transport: streams)
        #expect(streams.asked.withLock { $0.map(\.0.method) } == ["HEAD"])
    }

    /// An EventSource resumes with `?lastEventId=<vector>`: each member is asked from its own part, in the header,
    /// and never sees the vector (which no member's own stream parses).
    @Test func mergedStream_lastEventIdQuery_resumesEachMemberFromItsOwnPart() {
        let transport = Fake()
        _ = respond("GET", "/v1/stream?events=flag&lastEventId=0-4.2-9-1", transport: transport)
        let own = transport.asked.withLock { $0.first?.0 }
        #expect(own?.target == "/v1/stream?events=flag")
        #expect(own?.headers["Last-Event-ID"] == "4")
    }

    @Test func mergedStream_malformedLastEventIdQuery_is400AndAsksNoMember() {
        let transport = Fake()
        let response = respond("GET", "/v1/stream?lastEventId=17", transport: transport)
        #expect(response?.status.code == 400)
        #expect(transport.asked.withLock { $0.isEmpty })
    }

    @Test(arguments: [
        ("/v1/stream?lastEventId=0-1.1-2", "/v1/stream"), ("/v1/stream?a=1&lastEventId=x&b=2", "/v1/stream?a=1&b=2"),
        ("/v1/stream?last%45ventId=x", "/v1/stream")
    ])
    func memberTarget_dropsTheVector(target: String, expected: String) {
        #expect(MergedGlobalStream.target(target, replacing: ["lastEventId"], with: []) == expected)
    }
}

/// A member that accepts connections and never answers: its users wait, at most `maxInFlightPerOwner` threads are
/// held, and every other member's users are forwarded as usual.
@Suite struct ClusterRouterFrozenOwnerTests {
    /// Blocks every exchange with member 1 until `thaw`; answers every other member at once.
    final class FrozenMemberOne: ClusterTransport, Sendable {
        let gate = DispatchSemaphore(value: 0)
        let waiting = Mutex(0)

        func send(
            _ request: ClusterTransportRequest, to member: ClusterMembership.Member, timeout: Duration
        ) throws(ClusterTransportError) -> ClusterTransportResponse {
            if member.url == "http://m1:80" {
                waiting.withLock { $0 += 1 }
                _ = gate.wait(timeout: .now() + 30)
                throw .timedOut
            }
            return ClusterTransportResponse(status: .ok, headers: [:], body: Array("{}".utf8))
        }

        func stream(
            _ request: ClusterTransportRequest, to member: ClusterMembership.Member, connectTimeout: Duration,
            onHead: (ClusterTransportResponse) -> Bool, onBody: ([UInt8]) -> Bool
        ) throws(ClusterTransportError) {
            throw .unreachable("not asked")
        }

        func thaw(_ count: Int) { for _ in 0..<count { gate.signal() } }
    }

    func router(_ transport: ClusterTransport) -> (ClusterRouter, ClusterPeers) {
        let peers = ClusterPeers(membership: ClusterMembership(selfIndex: 0, members: ClusterRouterTests.members), transport: transport)
        return (ClusterRouter(router: ClusterRouterTests.LocalResponder(), peers: peers, transport: transport, metrics: Metrics()), peers)
    }

    /// Sends `GET /v1/users/{user}/flags` and returns a way to wait for its answer.
    func ask(_ router: ClusterRouter, user: String) -> () -> HTTPResponse? {
        let answer = Mutex<HTTPResponse?>(nil)
        let done = DispatchSemaphore(value: 0)
        router.respond(
            to: Request(head: HTTPRequestHead(method: "GET", target: "/v1/users/\(user)/flags"), body: [], id: "r"),
            sink: .capturing { response in
                answer.withLock { $0 = response }
                done.signal()
            })
        return {
            _ = done.wait(timeout: .now() + 10)
            return answer.withLock { $0 }
        }
    }

    @Test func frozenOwner_pastItsSlots_is503AtOnce_andOtherOwnersAreServed() {
        let transport = FrozenMemberOne()
        let (router, _) = router(transport)
        let limit = ClusterRouter.maxInFlightPerOwner
        let held = (0..<limit).map { _ in ask(router, user: ClusterRouterTests.user(ownedBy: 1)) }
        for _ in 0..<1000 where transport.waiting.withLock({ $0 }) < limit { Thread.sleep(forTimeInterval: 0.01) }
        #expect(transport.waiting.withLock { $0 } == limit)
        let refused = ask(router, user: ClusterRouterTests.user(ownedBy: 1))()
        #expect(refused?.status.code == 503)
        #expect(refused.map { String(decoding: $0.body, as: UTF8.self).contains("owner_busy") } == true)
        #expect(refused?.headers["Retry-After"] == "2")
        // Member 2's users do not wait behind member 1's.
        #expect(ask(router, user: ClusterRouterTests.user(ownedBy: 2))()?.status.code == 200)
        transport.thaw(limit)
        #expect(held.allSatisfy { $0()?.status.code == 503 })
        #expect(router.slots.count(1) == 0)
    }

    /// The other members' addresses, which the server exempts from its per-client cap: localhost resolves to the
    /// loopback address; this member's own is left out unless another member shares it.
    @Test func memberAddresses_areTheOtherMembers_toldOnceUntilTheyChange() {
        let members = ["http://127.0.0.1:7001", "http://127.0.0.2:7002", "http://localhost:7003"].compactMap(ClusterMembership.Member.init(url:))
        let peers = ClusterPeers(membership: ClusterMembership(selfIndex: 0, members: members), transport: ClusterRouterTests.FakeTransport())
        let heard = Mutex<[Set<String>]>([])
        peers.onMemberAddresses { addresses in heard.withLock { $0.append(addresses) } }
        peers.resolveMembers()
        peers.resolveMembers()
        #expect(heard.withLock { $0 } == [["127.0.0.2", "127.0.0.1"]])
    }

    @Test func ownerThatTimedOut_is503AndMarkedDown() {
        let transport = ClusterRouterTests.FakeTransport(failure: .timedOut)
        let (router, peers) = router(transport)
        #expect(ask(router, user: ClusterRouterTests.user(ownedBy: 1))()?.status.code == 503)
        #expect(peers.health(of: 1) == .down)
    }
}
