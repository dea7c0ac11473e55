import Engine
import Foundation
import HTTP
import HTTPServer
import NetworkFixtures
import Rules
import Testing

@testable import specd

#if canImport(Glibc)
import Glibc
#endif

/// Two daemons as `Daemon.assemble` builds them, members of one cluster on loopback: forwarding over real sockets.
@Suite(.serialized) struct ClusterDaemonTests {
    /// A port nothing listens on now (bound, read, released).
    static func freePort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    static func daemon(_ index: Int, ports: [Int]) throws -> Daemon {
        var options = DaemonOptions()
        options.dataDirectory = NSTemporaryDirectory() + "specd-cluster-\(UUID().uuidString)"
        options.logLevel = .error
        options.server = ServerConfiguration(host: "127.0.0.1", port: ports[index], loopCount: 1)
        options.cluster.selfIndex = index
        options.cluster.members = ports.compactMap { ClusterMembership.Member(url: "http://127.0.0.1:\($0)") }
        let daemon = try Daemon.assemble(options: options, logSink: MemoryLogSink())
        try daemon.start(clockThread: false)
        return daemon
    }

    static func call(
        _ port: Int, _ method: String, _ path: String, json: String? = nil, headers: [String: String] = [:]
    ) throws -> (
        status: Int, headers: [(String, String)], text: String
    ) {
        let client = try TestClient(port: port)
        var head = "\(method) \(path) HTTP/1.1\r\nHost: t\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        let body = Array((json ?? "").utf8)
        if json != nil { head += "Content-Type: application/json\r\nContent-Length: \(body.count)\r\n" }
        try client.send(Array((head + "\r\n").utf8) + body)
        let response = try client.readResponse(isHead: false)
        return (response.status, response.headers, response.bodyText)
    }

    static func user(ownedBy member: Int) -> String {
        (0..<10_000).map { "member-user-\($0)" }.first { ClusterMembership.owner(of: $0, memberCount: 2) == member } ?? ""
    }

    @Test func forwarding_writeEnteringTheOtherMember_landsOnTheOwner_andItsAbsenceIs503ForItsUsersOnly() throws {
        let ports = [Self.freePort(), Self.freePort()]
        let first = try Self.daemon(0, ports: ports)
        let second = try Self.daemon(1, ports: ports)
        defer {
            first.stop()
            first.closeDatabase()
        }
        let theirs = Self.user(ownedBy: 1)
        let ours = Self.user(ownedBy: 0)
        let ops = #"{"ops": [{"op": "increment", "counter": "opens", "by": 3}]}"#
        #expect(try Self.call(ports[0], "PATCH", "/v1/users/\(theirs)/context", json: ops).status == 200)
        // The owner holds it: a request marked as forwarded is answered there, and refused (421) by the other.
        let direct = try Self.call(ports[1], "GET", "/v1/users/\(theirs)", headers: ["X-Specd-Forwarded": "0"])
        #expect(direct.status == 200 && direct.text.contains(#""opens":3"#))
        #expect(try Self.call(ports[0], "GET", "/v1/users/\(theirs)", headers: ["X-Specd-Forwarded": "1"]).status == 421)
        // Entering the other member, a read is forwarded and answers what the owner holds.
        #expect(try Self.call(ports[0], "GET", "/v1/users/\(theirs)").text == direct.text)
        #expect(first.engine.metrics.counter("forwarded_requests_total") >= 2)

        second.stop()
        second.closeDatabase()
        let refused = try Self.call(ports[0], "GET", "/v1/users/\(theirs)")
        #expect(refused.status == 503)
        #expect(refused.headers.first { $0.0.lowercased() == "retry-after" }.flatMap { Int($0.1) } != nil)
        #expect(try Self.call(ports[0], "PATCH", "/v1/users/\(ours)/context", json: ops).status == 200)
    }

    /// A member the merged stream had heard nothing from when the client left: its writes meanwhile reach the client
    /// that resumes, since the vector holds where that member's stream started (its `X-Specd-Stream-Start`).
    @Test func mergedStream_resume_deliversWhatAMemberNotYetHeardFromPublishedMeanwhile() throws {
        let ports = [Self.freePort(), Self.freePort()]
        let daemons = [try Self.daemon(0, ports: ports), try Self.daemon(1, ports: ports)]
        defer {
            for daemon in daemons {
                daemon.stop()
                daemon.closeDatabase()
            }
        }
        let ours = Self.user(ownedBy: 0), theirs = Self.user(ownedBy: 1)
        let ops = #"{"ops": [{"op": "increment", "counter": "opens", "by": 1}]}"#
        let path = "/v1/stream?include=context&events=context"
        let first = try ClusterTicketTests.open(ports[0], path)
        #expect(first.status == 200)
        // Member 1's own stream for this merged one has opened (its head is read just before it subscribes).
        for _ in 0..<200 where daemons[1].hub.streamCount == 0 { Thread.sleep(forTimeInterval: 0.01) }
        Thread.sleep(forTimeInterval: 0.2)
        #expect(try Self.call(ports[0], "PATCH", "/v1/users/\(ours)/context", json: ops).status == 200)
        var lastID = ""
        for _ in 0..<20 {
            let event = try first.client.readEvents(1)[0]
            guard event.contains(#""user":"\#(ours)""#) else { continue }
            lastID = event.split(separator: "\n").first { $0.hasPrefix("id: ") }.map { String($0.dropFirst(4)) } ?? ""
            break
        }
        #expect(lastID.contains("1-"), "the vector names member 1 though it sent nothing: \(lastID)")
        first.client.reset()

        for _ in 0..<2 { #expect(try Self.call(ports[1], "PATCH", "/v1/users/\(theirs)/context", json: ops).status == 200) }
        let resumed = try ClusterTicketTests.open(ports[0], path, headers: ["Last-Event-ID": lastID])
        #expect(resumed.status == 200)
        #expect((try? ClusterTicketTests.waitFor(#""user":"\#(theirs)""#, on: resumed.client)) == true)
        resumed.client.reset()
    }
}
