import Foundation
import NetworkFixtures
import Rules
import Testing

@testable import API
@testable import Engine
@testable import specd

/// `Last-Event-ID` resume (docs/api.md, "Streams"): a stream that reconnects gets exactly the events it would have
/// received had it stayed connected, once each, whatever it filters on. Each case keeps one stream connected
/// through writes, clock-driven changes and a trigger, then reconnects the same stream from every id it received
/// and compares.
@Suite(.serialized) struct StreamResumeTests {
    static let rules = """
        {"flags": {
          "a": {"when": {"cooldown": {"event": "shown", "for": "1h"}}},
          "c": {"when": {"cooldown": {"event": "shown", "for": "2h"}}},
          "b": {"when": {"segment": "vip"}}},
         "triggers": {"t": {"on": ["ping"], "when": {"always": true}}}}
        """

    /// One SSE event reduced to what identifies it: id, type and the data's user / key / value.
    static func summary(_ block: String) -> String? {
        var id = ""
        var type = ""
        var data = ""
        for line in block.split(separator: "\n") {
            if line.hasPrefix("id: ") { id = String(line.dropFirst(4)) }
            if line.hasPrefix("event: ") { type = String(line.dropFirst(7)) }
            if line.hasPrefix("data: ") { data = String(line.dropFirst(6)) }
        }
        guard !type.isEmpty else { return nil } // keep-alive comments
        let json = try? JSONParser().parse(data)
        let user = json?["user"]?.stringValue ?? "-"
        let key = json?["key"]?.stringValue ?? json?["trigger"]?.stringValue ?? json?["version"]?.stringValue ?? ""
        let value = json?["value"].map(JSONWriter.string) ?? ""
        return "\(id) \(type) \(user) \(key) \(value)"
    }

    /// Every event up to and including the `rules` marker.
    static func drain(_ client: TestClient) throws -> [String] {
        var events: [String] = []
        while events.count < 100 {
            guard let event = summary(try client.readEvents(1)[0]) else { continue }
            if event.contains(" rules - marker") { return events }
            events.append(event)
        }
        return events
    }

    @Test(arguments: [
        "/v1/users/u1/stream", "/v1/users/u1/stream?flags=a", "/v1/users/u1/stream?flags=b", "/v1/users/u1/stream?include=context",
        "/v1/users/u1/stream?events=trigger,rules", "/v1/stream", "/v1/stream?include=context"
    ])
    func resume_fromEveryReceivedID_replaysExactlyWhatTheStreamWouldHaveReceived(path: String) throws {
        let api = try APIHarness(rulesText: Self.rules)
        defer { api.stop() }
        // The stream under test, and the filtered streams that leave their own traces in the hub.
        let live = try api.stream(path)
        let others = try ["/v1/users/u1/stream?flags=a", "/v1/users/u1/stream?events=trigger,rules", "/v1/users/u1/stream"].map {
            try api.stream($0)
        }
        _ = try api.call("PATCH", "/v1/users/u1/context", json: #"{"ops": [{"op": "recordEvent", "event": "shown"}]}"#)
        _ = try api.call("PATCH", "/v1/users/u1/context", json: #"{"ops": [{"op": "addSegment", "segment": "vip"}]}"#)
        _ = try api.call("PATCH", "/v1/users/u2/context", json: #"{"ops": [{"op": "addSegment", "segment": "vip"}]}"#)
        for _ in 0..<3 {
            api.clock.advance(3_600_000)
            api.engine.runDue(now: api.clock.now())
        }
        _ = try api.call("POST", "/v1/users/u1/events/ping")
        _ = try api.call("PATCH", "/v1/users/u1/context", json: #"{"ops": [{"op": "removeSegment", "segment": "vip"}]}"#)
        api.clock.advance(3_600_000)
        api.engine.runDue(now: api.clock.now())
        api.hub.publish(.rulesReloaded(version: "marker"))
        let received = try Self.drain(live)
        for other in others { _ = try Self.drain(other) }

        // Live: each change once (no flag repeats its value for one user).
        var lastValue: [String: String] = [:]
        for event in received where event.contains(" flag ") {
            let parts = event.split(separator: " ")
            let slot = "\(parts[2]) \(parts[3])"
            #expect(lastValue[slot] != String(parts[4]), "\(path): \(event) repeats a value it already sent: \(received)")
            lastValue[slot] = String(parts[4])
        }
        #expect(!received.isEmpty)

        // Resumed from each id it saw (and from before the first): exactly the rest, in order.
        let ids = ["0"] + received.map { String($0.split(separator: " ")[0]) }
        for (index, id) in ids.enumerated() {
            let resumed = try api.stream(path, headers: ["Last-Event-ID": id])
            let replayed = try Self.drain(resumed)
            #expect(replayed == Array(received[index...]), "\(path) from \(id)")
        }
    }
}
