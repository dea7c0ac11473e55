import API
import Engine
import Foundation
import HTTPServer
import NetworkFixtures
import Rules
import Testing

@testable import API
@testable import specd

/// Stream tickets across a cluster of two daemons on loopback, as `Daemon.assemble` builds them: a ticket issued on
/// one member opens its stream on whichever member the request reaches, and only once in the whole cluster.
@Suite(.serialized) struct ClusterTicketTests {
    static let reader = Token(name: "reader", secret: "reader-secret-0123456789", scopes: [.evaluate])
    static let writer = Token(name: "writer", secret: "writer-secret-0123456789", scopes: [.evaluate, .write])
    static let ops = Token(name: "ops", secret: "admin-secret-0123456789ab", scopes: [.admin])
    static let patch = #"{"ops": [{"op": "increment", "counter": "opens", "by": 3}]}"#

    static func bearer(_ token: Token) -> [String: String] { ["Authorization": "Bearer \(String(decoding: token.secret, as: UTF8.self))"] }

    /// Two members; each lists the tokens in another order (the key does not depend on it).
    static func cluster() throws -> (ports: [Int], daemons: [Daemon]) {
        let ports = [ClusterDaemonTests.freePort(), ClusterDaemonTests.freePort()]
        var daemons: [Daemon] = []
        for index in ports.indices {
            var options = DaemonOptions()
            options.dataDirectory = NSTemporaryDirectory() + "specd-cluster-tickets-\(UUID().uuidString)"
            options.logLevel = .error
            options.server = ServerConfiguration(host: "127.0.0.1", port: ports[index], loopCount: 1)
            options.cluster.selfIndex = index
            options.cluster.members = ports.compactMap { ClusterMembership.Member(url: "http://127.0.0.1:\($0)") }
            options.tokens = index == 0 ? [reader, writer, ops] : [ops, writer, reader]
            let daemon = try Daemon.assemble(options: options, logSink: MemoryLogSink())
            try daemon.start(clockThread: false)
            daemons.append(daemon)
        }
        return (ports, daemons)
    }

    static func stop(_ daemons: [Daemon]) {
        for daemon in daemons {
            daemon.stop()
            daemon.closeDatabase()
        }
    }

    static func ticket(_ port: Int, _ stream: String, as token: Token) throws -> String {
        let reply = try ClusterDaemonTests.call(port, "POST", "/v1/stream-tickets", json: #"{"stream": "\#(stream)"}"#, headers: bearer(token))
        #expect(reply.status == 200, "\(reply.text)")
        let body = try JSONParser().parse(Array(reply.text.utf8))
        return try #require(body["ticket"]?.stringValue)
    }

    static func open(_ port: Int, _ path: String, headers: [String: String] = [:]) throws -> (client: TestClient, status: Int) {
        let client = try TestClient(port: port)
        var head = "GET \(path) HTTP/1.1\r\nHost: t\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        try client.send(head + "\r\n")
        return (client, try client.readHead().status)
    }

    /// Reads events until one contains `text` (a merged stream also carries `retry` and `member` blocks).
    static func waitFor(_ text: String, on client: TestClient) throws -> Bool {
        for _ in 0..<20 where try client.readEvents(1)[0].contains(text) { return true }
        return false
    }

    @Test func userStreamTicket_fromOneMember_opensTheOwnersStreamThroughEither_once() throws {
        let (ports, daemons) = try Self.cluster()
        defer { Self.stop(daemons) }
        let theirs = ClusterDaemonTests.user(ownedBy: 1)
        let path = "/v1/users/\(theirs)/stream?include=context&events=context"

        // Issued on member 0, entering member 0: forwarded to the owner, which checks it and hears the write.
        let first = try Self.ticket(ports[0], "/v1/users/\(theirs)/stream", as: Self.reader)
        let stream = try Self.open(ports[0], "\(path)&ticket=\(first)")
        #expect(stream.status == 200)
        #expect(
            try ClusterDaemonTests.call(ports[0], "PATCH", "/v1/users/\(theirs)/context", json: Self.patch, headers: Self.bearer(Self.writer)).status
                == 200)
        #expect(try Self.waitFor(#""opens":3"#, on: stream.client))
        for port in ports {
            let again = try ClusterDaemonTests.call(port, "GET", "\(path)&ticket=\(first)")
            #expect(again.status == 401 && again.text.contains("invalid_ticket"), "member \(port): \(again.text)")
        }

        // Issued on member 0, entering the owner directly; spent there, so member 0 forwarding it again is refused.
        let second = try Self.ticket(ports[0], "/v1/users/\(theirs)/stream", as: Self.reader)
        #expect(try Self.open(ports[1], "\(path)&ticket=\(second)").status == 200)
        #expect(try ClusterDaemonTests.call(ports[0], "GET", "\(path)&ticket=\(second)").status == 401)
        #expect(daemons[1].engine.metrics.counter("stream_tickets_redeemed_total") == 2)
        #expect(daemons[0].engine.metrics.counter("stream_tickets_redeemed_total") == 0)
    }

    /// A global ticket for each member as the one redeeming it (the member owning its nonce): issued on member 1,
    /// the merged stream opens on member 0 and hears writes for users of both; a second use is refused wherever it
    /// enters, and a forged forwarding mark does not make another member redeem it.
    @Test(arguments: [0, 1])
    func globalTicket_fromOneMember_opensTheMergedStreamOnAnother_once(redeemer: Int) throws {
        let (ports, daemons) = try Self.cluster()
        defer { Self.stop(daemons) }
        let key = StreamTickets.key(tokens: [Self.ops, Self.reader, Self.writer])
        var ticket = ""
        for _ in 0..<64 {
            let candidate = try Self.ticket(ports[1], "/v1/stream", as: Self.ops)
            let nonce = try #require(StreamTicket(verifying: candidate, key: key)).nonce
            if ClusterMembership.owner(of: HMAC.hex(nonce), memberCount: 2) == redeemer {
                ticket = candidate
                break
            }
        }
        try #require(!ticket.isEmpty)
        let other = 1 - redeemer
        #expect(
            try ClusterDaemonTests.call(ports[other], "GET", "/v1/stream?ticket=\(ticket)", headers: ["X-Specd-Forwarded": "\(redeemer)"]).status
                == 421)

        let merged = try Self.open(ports[0], "/v1/stream?include=context&events=context&ticket=\(ticket)")
        #expect(merged.status == 200)
        for owner in [0, 1] {
            let user = ClusterDaemonTests.user(ownedBy: owner)
            #expect(
                try ClusterDaemonTests.call(ports[0], "PATCH", "/v1/users/\(user)/context", json: Self.patch, headers: Self.bearer(Self.writer))
                    .status == 200)
            #expect(try Self.waitFor(#""user":"\#(user)""#, on: merged.client), "a write for member \(owner)'s user")
        }
        for port in ports {
            let again = try ClusterDaemonTests.call(port, "GET", "/v1/stream?ticket=\(ticket)")
            #expect(again.status == 401 && again.text.contains("invalid_ticket"), "member \(port): \(again.text)")
        }
    }
}
