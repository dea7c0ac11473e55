import API
import Engine
import Foundation
import HTTP
import HTTPServer
import Rules
import Synchronization
import Testing

/// Forwarding decisions and relaying, with a transport double: no sockets.
@Suite struct ClusterRouterTests {
    /// Answers every exchange with `answer` (or fails with `failure`) and records what it was asked.
    final class FakeTransport: ClusterTransport, Sendable {
        let asked = Mutex<[(ClusterTransportRequest, String)]>([])
        let answer: ClusterTransportResponse
        let failure: ClusterTransportError?

        init(answer: ClusterTransportResponse = ClusterTransportResponse(status: .ok, headers: [:]), failure: ClusterTransportError? = nil) {
            self.answer = answer
            self.failure = failure
        }

        func send(
            _ request: ClusterTransportRequest, to member: ClusterMembership.Member, timeout: Duration
        ) throws(ClusterTransportError)
            -> ClusterTransportResponse
        {
            asked.withLock { $0.append((request, member.url)) }
            if let failure { throw failure }
            return answer
        }

        func stream(
            _ request: ClusterTransportRequest, to member: ClusterMembership.Member, connectTimeout: Duration,
            onHead: (ClusterTransportResponse) -> Bool, onBody: ([UInt8]) -> Bool
        ) throws(ClusterTransportError) {
            asked.withLock { $0.append((request, member.url)) }
            if let failure { throw failure }
            _ = onHead(answer)
            _ = onBody(answer.body)
        }
    }

    struct LocalResponder: Responder {
        func respond(to request: consuming Request, sink: consuming ResponseSink) { sink.send(.json(.ok, #"{"local":true}"#)) }
    }

    static let members = (0..<3).compactMap { ClusterMembership.Member(url: "http://m\($0):80") }

    /// A user each member owns, found by the ownership function itself.
    static func user(ownedBy member: Int) -> String {
        (0...).lazy.map { "user-\($0)" }.first { ClusterMembership.owner(of: $0, memberCount: 3) == member }!
    }

    func respond(
        _ method: String, _ target: String, body: String = "", headers: HTTPHeaders = [:], transport: ClusterTransport, selfIndex: Int = 0,
        peers: ClusterPeers? = nil
    ) -> HTTPResponse? {
        let peers = peers ?? ClusterPeers(membership: ClusterMembership(selfIndex: selfIndex, members: Self.members), transport: transport)
        let router = ClusterRouter(router: LocalResponder(), peers: peers, transport: transport, metrics: Metrics())
        let answer = Mutex<HTTPResponse?>(nil)
        let done = DispatchSemaphore(value: 0)
        router.respond(
            to: Request(head: HTTPRequestHead(method: method, target: target, headers: headers), body: Array(body.utf8), id: "rid-1"),
            sink: .capturing { response in
                answer.withLock { $0 = response }
                done.signal()
            })
        _ = done.wait(timeout: .now() + 5)
        return answer.withLock { $0 }
    }

    @Test func ownedUser_isAnsweredLocally() {
        let transport = FakeTransport()
        let response = respond("GET", "/v1/users/\(Self.user(ownedBy: 0))", transport: transport)
        #expect(response.map { String(decoding: $0.body, as: UTF8.self) } == #"{"local":true}"#)
        #expect(transport.asked.withLock { $0.isEmpty })
    }

    @Test(arguments: [
        ("GET", "/v1/users/{u}/flags/f?explain=1", ""), ("POST", "/ofrep/v1/evaluate/flags/f", #"{"context":{"targetingKey":"{u}"}}"#),
        ("POST", "/ofrep/v1/evaluate/flags", #"{"context":{"targetingKey":"{u}"}}"#),
        ("POST", "/ofrep/v1/track", #"{"context":{"targetingKey":"{u}"}}"#),
        ("POST", "/v1/evaluate", #"{"user":"{u}","context":{}}"#), ("PATCH", "/v1/users/{u}/context", #"{"ops":[]}"#)
    ])
    func otherMembersUser_isForwardedToTheOwnerWithItsTargetAndAuthorization(method: String, target: String, body: String) {
        let user = Self.user(ownedBy: 2)
        let transport = FakeTransport(
            answer: ClusterTransportResponse(status: .created, headers: ["ETag": "\"e\"", "Connection": "close"], body: [1]))
        let response = respond(
            method, target.replacingOccurrences(of: "{u}", with: user), body: body.replacingOccurrences(of: "{u}", with: user),
            headers: ["Authorization": "Bearer t", "Connection": "keep-alive", "Host": "front"], transport: transport)
        #expect(response?.status.code == 201)
        #expect(response?.headers["ETag"] == "\"e\"")
        #expect(response?.headers["Connection"] == nil)
        let asked = transport.asked.withLock { $0 }
        #expect(asked.count == 1)
        #expect(asked.first?.1 == "http://m2:80")
        #expect(asked.first?.0.target == target.replacingOccurrences(of: "{u}", with: user))
        #expect(asked.first?.0.headers["Authorization"] == "Bearer t")
        #expect(asked.first?.0.headers["X-Specd-Forwarded"] == "0")
        #expect(asked.first?.0.headers["X-Request-Id"] == "rid-1")
        #expect(asked.first?.0.headers["Connection"] == nil)
        #expect(asked.first?.0.headers["Host"] == nil)
    }

    @Test func forwardedRequestForAnotherMembersUser_is421AndNotForwardedAgain() {
        let transport = FakeTransport()
        let response = respond("GET", "/v1/users/\(Self.user(ownedBy: 1))", headers: ["X-Specd-Forwarded": "2"], transport: transport)
        #expect(response?.status.code == 421)
        #expect(transport.asked.withLock { $0.isEmpty })
    }

    @Test func forwardedRequestForOwnUser_isAnsweredLocally() {
        let response = respond("GET", "/v1/users/\(Self.user(ownedBy: 0))", headers: ["X-Specd-Forwarded": "2"], transport: FakeTransport())
        #expect(response?.status.code == 200)
    }

    @Test func unreachableOwner_is503WithRetryAfter_andMarkedDown() {
        let transport = FakeTransport(failure: .unreachable("connectFailed"))
        let peers = ClusterPeers(membership: ClusterMembership(selfIndex: 0, members: Self.members), transport: transport)
        let response = respond("GET", "/v1/users/\(Self.user(ownedBy: 1))", transport: transport, peers: peers)
        #expect(response?.status.code == 503)
        #expect(response?.headers["Retry-After"].flatMap(Int.init) != nil)
        #expect(peers.health(of: 1) == .down)
        // Another member's users are unaffected.
        let other = FakeTransport()
        #expect(respond("GET", "/v1/users/\(Self.user(ownedBy: 2))", transport: other, peers: peers)?.status.code == 200)
    }

    @Test(arguments: ["/v1/users/%ZZ", "/healthz", "/ofrep/v1/events"])
    func requestsWithoutAValidUser_areAnsweredLocally(target: String) {
        let transport = FakeTransport()
        #expect(respond("GET", target, transport: transport)?.status.code == 200)
        #expect(transport.asked.withLock { $0.isEmpty })
    }

    /// The merged stream asks this replica's own stream first: its refusal (here 401) is the client's answer.
    @Test func mergedStream_refusedByOwnStream_relaysTheRefusal() {
        let transport = FakeTransport(
            answer: ClusterTransportResponse(status: .unauthorized, headers: ["Content-Type": "application/json"], body: [123, 125]))
        let response = respond("GET", "/v1/stream", headers: ["Authorization": "Bearer nope"], transport: transport, selfIndex: 1)
        #expect(response?.status.code == 401)
        #expect(response?.body == [123, 125])
        #expect(transport.asked.withLock { $0.map(\.1) } == ["http://m1:80"])
        #expect(transport.asked.withLock { $0.first?.0.headers["X-Specd-Forwarded"] } == "1")
    }

    @Test func mergedStream_malformedLastEventID_is400() {
        let response = respond("GET", "/v1/stream", headers: ["Last-Event-ID": "17"], transport: FakeTransport())
        #expect(response?.status.code == 400)
    }

    @Test func routingUser_isDecodedFromThePath() {
        let request = Request(head: HTTPRequestHead(method: "GET", target: "/v1/users/caf%C3%A9%2Fx/flags"), body: [], id: "r")
        #expect(ClusterRouting.user(of: request) == "café/x")
        let events = Request(head: HTTPRequestHead(method: "GET", target: "/ofrep/v1/events?targetingKey=a%20b"), body: [], id: "r")
        #expect(ClusterRouting.user(of: events) == "a b")
    }

    @Test func probe_readsHealthAndRuleVersion() {
        let transport = FakeTransport(answer: ClusterTransportResponse(status: .ok, headers: [ClusterPeers.rulesVersionHeader: "v7"]))
        let peers = ClusterPeers(membership: ClusterMembership(selfIndex: 0, members: Self.members), transport: transport)
        let changes = Mutex<[Int]>([])
        peers.onChange { member, _ in changes.withLock { $0.append(member) } }
        peers.probeAll()
        #expect(peers.statuses.map(\.health) == [.up, .up, .up])
        #expect(peers.statuses[1].rulesVersion == "v7")
        #expect(changes.withLock { $0 }.sorted() == [1, 2])
        #expect(transport.asked.withLock { $0.map(\.0.target) } == ["/readyz", "/readyz"])
    }
}
