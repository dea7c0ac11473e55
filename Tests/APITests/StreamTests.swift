import Foundation
import NetworkFixtures
import Rules
import Store
import Testing

@testable import API
@testable import Engine
@testable import HTTPServer
@testable import specd

#if canImport(Glibc)
import Glibc
#endif

@Suite(.serialized) struct StreamTests {
    static let patchVIP = #"{"ops": [{"op": "addSegment", "segment": "vip"}]}"#

    @Test func write_sendsAFlagEventWithTheLogSeqAsId() throws {
        let api = try APIHarness()
        defer { api.stop() }
        let client = try api.stream("/v1/users/u1/stream")
        _ = try api.call("PATCH", "/v1/users/u1/context", json: Self.patchVIP)
        let event = try client.readEvents(1)[0]
        #expect(event.contains("id: 1\nevent: flag\n"))
        #expect(event.contains(#""key":"discount","value":50,"previous":0"#))
    }

    @Test func sameValueAgain_sendsNothing() throws {
        let api = try APIHarness()
        defer { api.stop() }
        let client = try api.stream("/v1/users/u1/stream?flags=discount")
        _ = try api.call("PATCH", "/v1/users/u1/context", json: Self.patchVIP)
        _ = try api.call("PATCH", "/v1/users/u1/context", json: #"{"ops": [{"op": "increment", "counter": "x"}]}"#)
        _ = try api.call("PATCH", "/v1/users/u1/context", json: #"{"ops": [{"op": "removeSegment", "segment": "vip"}]}"#)
        let events = try client.readEvents(2)
        #expect(events[0].contains(#""value":50"#))
        #expect(events[1].hasPrefix("id: 3\n"))
        #expect(events[1].contains(#""value":0,"previous":50"#))
    }

    @Test func cooldownEnding_isScheduledAtTheInstantAndPushedWithNoWrite() throws {
        let rules = #"{"flags": {"promo": {"when": {"cooldown": {"event": "shown", "for": "1h"}}}}}"#
        let api = try APIHarness(rulesText: rules)
        defer { api.stop() }
        _ = try api.call("PATCH", "/v1/users/u1/context", json: #"{"ops": [{"op": "recordEvent", "event": "shown"}]}"#)
        let client = try api.stream("/v1/users/u1/stream")
        // The prelude may reach the client just before the stream's user is scheduled (on the server's loop).
        let deadline = ContinuousClock.now + .seconds(2)
        while api.engine.scheduledJobs == 0, ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.005) }
        #expect(api.engine.scheduledJobs == 1)
        api.clock.advance(3_600_000 - 1)
        api.engine.runDue(now: api.clock.now())
        api.clock.advance(1)
        api.engine.runDue(now: api.clock.now())
        let event = try client.readEvents(1)[0]
        #expect(event.contains(#""key":"promo","value":true,"previous":false"#))
        #expect(event.contains("id: 1-1"))
    }

    @Test func resume_replaysExactlyTheMissedEvents_andTooOldGetsReset() throws {
        var options = StreamHub.Options()
        options.retainEvents = 3
        let api = try APIHarness(hubOptions: options)
        defer { api.stop() }
        // The client's first stream, open while the writes land: it is the one that reconnects below.
        let first = try api.stream("/v1/users/u1/stream")
        for op in ["addSegment", "removeSegment", "addSegment", "removeSegment", "addSegment"] {
            _ = try api.call("PATCH", "/v1/users/u1/context", json: #"{"ops": [{"op": "\#(op)", "segment": "vip"}]}"#)
        }
        #expect(try first.readEvents(5).count == 5)
        // Events 1...5 happened; 3, 4, 5 are retained.
        let resumed = try api.stream("/v1/users/u1/stream", headers: ["Last-Event-ID": "3"])
        let missed = try resumed.readEvents(2)
        #expect(missed[0].hasPrefix("id: 4\n"))
        #expect(missed[1].hasPrefix("id: 5\n"))
        let tooOld = try api.stream("/v1/users/u1/stream", headers: ["Last-Event-ID": "1"])
        let reset = try tooOld.readEvents(1)[0]
        #expect(reset.contains("event: reset"))
        #expect(reset.contains(#""discount":{"value":50"#))
        // Live events follow both.
        _ = try api.call("PATCH", "/v1/users/u1/context", json: #"{"ops": [{"op": "removeSegment", "segment": "vip"}]}"#)
        #expect(try resumed.readEvents(1)[0].hasPrefix("id: 6\n"))
        #expect(try tooOld.readEvents(1)[0].hasPrefix("id: 6\n"))
    }

    /// A context event carries the user's whole context, so a count of events bounds nothing: the window is also
    /// bounded by bytes, and an id that fell out of it gets a reset like any too-old id.
    @Test func resume_windowIsBoundedByBytes_olderIdsGetReset() throws {
        var options = StreamHub.Options()
        options.retainBytes = 4_096
        let api = try APIHarness(hubOptions: options)
        defer { api.stop() }
        let watcher = try api.stream("/v1/users/u1/stream?include=context&events=context")
        let big = String(repeating: "x", count: 1_500)
        for index in 0..<6 {
            _ = try api.call("PATCH", "/v1/users/u1/context", json: #"{"ops": [{"op": "setAttribute", "key": "a\#(index)", "value": "\#(big)"}]}"#)
        }
        #expect(try watcher.readEvents(6).count == 6)
        // Events 1...6 happened, each context event larger than the last; only the newest fit in 4 KiB.
        let tooOld = try api.stream("/v1/users/u1/stream?include=context&events=context", headers: ["Last-Event-ID": "2"])
        #expect(try tooOld.readEvents(1)[0].contains("event: reset"))
        let recent = try api.stream("/v1/users/u1/stream?include=context&events=context", headers: ["Last-Event-ID": "5"])
        #expect(try recent.readEvents(1)[0].hasPrefix("id: 6\n"))
    }

    /// Sent after every write and retained for resume, a context event must not grow with the donation history.
    @Test func contextEvent_carriesDonationSummariesWithoutTheirHistory() throws {
        let api = try APIHarness()
        defer { api.stop() }
        let watcher = try api.stream("/v1/users/u1/stream?include=context&events=context")
        for _ in 0..<3 { _ = try api.call("POST", "/v1/users/u1/events/appStarted") }
        let events = try watcher.readEvents(3)
        #expect(events[2].contains(#""appStarted":{"count":3"#))
        #expect(!events[2].contains(#""recent""#))
        // Reads still carry it.
        #expect(try api.call("GET", "/v1/users/u1").text.contains(#""recent""#))
    }

    /// The common reconnect: a client's only context stream drops, a write lands, it comes back with its
    /// Last-Event-ID. The write's context event must have been made and retained although nobody was listening.
    @Test func contextEvent_whileTheOnlyContextStreamIsAway_isReplayedOnResume() throws {
        let api = try APIHarness()
        defer { api.stop() }
        var first: TestClient? = try api.stream("/v1/users/u1/stream?include=context&events=context")
        _ = try api.call("PATCH", "/v1/users/u1/context", json: #"{"ops": [{"op": "increment", "counter": "c"}]}"#)
        #expect(try first!.readEvents(1)[0].hasPrefix("id: 1\n"))
        first = nil
        let closed = ContinuousClock.now + .seconds(3)
        while api.hub.streamCount > 0, ContinuousClock.now < closed { Thread.sleep(forTimeInterval: 0.01) }
        #expect(api.hub.streamCount == 0)
        _ = try api.call("PATCH", "/v1/users/u1/context", json: #"{"ops": [{"op": "increment", "counter": "c"}]}"#)
        let resumed = try api.stream("/v1/users/u1/stream?include=context&events=context", headers: ["Last-Event-ID": "1"])
        let missed = try resumed.readEvents(1)[0]
        #expect(missed.hasPrefix("id: 2\nevent: context"))
        #expect(missed.contains(#""c":2"#))
    }

    @Test func restart_keepsIdsMonotonic() throws {
        let directory = NSTemporaryDirectory() + "specd-stream-\(UUID().uuidString)"
        let first = try APIHarness(directory: directory)
        _ = try first.call("PATCH", "/v1/users/u1/context", json: Self.patchVIP)
        _ = try first.call("PATCH", "/v1/users/u1/context", json: #"{"ops": [{"op": "increment", "counter": "k"}]}"#)
        first.stop()
        let second = try APIHarness(directory: directory)
        defer { second.stop() }
        let client = try second.stream("/v1/users/u1/stream", headers: ["Last-Event-ID": "1"])
        // An id from before the restart is not in the new window: reset, carrying the current id.
        #expect(try client.readEvents(1)[0].contains("id: 2\nevent: reset"))
        _ = try second.call("PATCH", "/v1/users/u1/context", json: #"{"ops": [{"op": "removeSegment", "segment": "vip"}]}"#)
        #expect(try client.readEvents(1)[0].hasPrefix("id: 3\n"))
    }

    @Test func slowConsumer_isDropped_whileAFastOneKeepsReceiving() throws {
        // Events of about 4 KB each, so a client that stops reading fills every buffer quickly.
        let big = String(repeating: "x", count: 2000)
        let rules = #"{"flags": {"big": {"cases": [{"when": {"segment": "vip"}, "value": "a\#(big)"}], "fallback": "b\#(big)"}}}"#
        let api = try APIHarness(rulesText: rules) { $0.streamBufferBytes = 64 * 1024 }
        defer { api.stop() }
        let slow = try api.stream("/v1/users/u1/stream", receiveBuffer: 4096)
        let fast = try api.stream("/v1/users/u1/stream")
        var received = 0
        for index in 0..<600 {
            let op = index % 2 == 0 ? "addSegment" : "removeSegment"
            _ = try api.call("PATCH", "/v1/users/u1/context", json: #"{"ops": [{"op": "\#(op)", "segment": "vip"}]}"#)
            received += try fast.readEvents(1).count
        }
        #expect(received == 600)
        #expect(api.hub.droppedSlowStreams == 1)
        #expect(api.hub.streamCount == 1)
        _ = slow
    }

    /// Bytes waiting and no write progress for the stall limit: dropped, though the buffer limit is far away.
    @Test func stalledStream_isDroppedAfterTheStallLimit() throws {
        let big = String(repeating: "x", count: 2000)
        let rules = #"{"flags": {"big": {"cases": [{"when": {"segment": "vip"}, "value": "a\#(big)"}], "fallback": "b\#(big)"}}}"#
        let api = try APIHarness(rulesText: rules) {
            $0.streamStallTimeout = .milliseconds(1_500)
            $0.streamBufferBytes = 16 << 20
        }
        defer { api.stop() }
        let stalled = try api.stream("/v1/users/u1/stream", receiveBuffer: 4096)
        // Enough to fill the 64 KiB send buffer and the client's receive buffer; the rest waits in ours.
        let started = ContinuousClock.now
        for index in 0..<100 {
            let op = index % 2 == 0 ? "addSegment" : "removeSegment"
            _ = try api.call("PATCH", "/v1/users/u1/context", json: #"{"ops": [{"op": "\#(op)", "segment": "vip"}]}"#)
        }
        // Still open while the stall limit has not passed (on a loaded machine the writes alone may take longer).
        if ContinuousClock.now - started < .milliseconds(1_200) { #expect(api.hub.streamCount == 1) }
        let deadline = ContinuousClock.now + .seconds(6)
        while api.hub.droppedSlowStreams == 0, ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.02) }
        #expect(api.hub.droppedSlowStreams == 1)
        #expect(api.hub.streamCount == 0)
        _ = stalled
    }

    /// Events written on the stream's own loop go out from the event's shared bytes while nothing waits; once the
    /// socket is full, what it did not take waits in the stream's buffer and later events behind it. The client
    /// must see every event once, whole, in order.
    @Test func eventsWrittenOnTheLoop_throughAFullSocket_arriveWholeAndInOrder() throws {
        let big = String(repeating: "x", count: 2000)
        let rules = #"{"flags": {"big": {"cases": [{"when": {"segment": "vip"}, "value": "a\#(big)"}], "fallback": "b\#(big)"}}}"#
        let api = try APIHarness(rulesText: rules)
        defer { api.stop() }
        let client = try api.stream("/v1/users/u1/stream?flags=big", receiveBuffer: 4096)
        // Some 4 KiB an event (the value and the previous one): 600 KiB, far more than the sockets hold, well
        // inside the stream's 1 MiB buffer.
        let count = 150
        for index in 0..<count {
            let op = index % 2 == 0 ? "addSegment" : "removeSegment"
            _ = try api.call("PATCH", "/v1/users/u1/context", json: #"{"ops": [{"op": "\#(op)", "segment": "vip"}]}"#)
        }
        // The socket is full and the rest waits in the stream's buffer.
        #expect(api.server.bufferedBytes().pendingOutput > 0)
        let events = try client.readEvents(count)
        for (index, event) in events.enumerated() {
            let value = index % 2 == 0 ? "a\(big)" : "b\(big)"
            #expect(event.contains(#""key":"big","value":"\#(value)""#), "event \(index) is not whole")
            #expect(event.hasPrefix("id: \(index + 1)\n"), "event \(index): \(event.prefix(20))")
        }
        #expect(api.hub.droppedSlowStreams == 0)
    }

    /// A publisher on another thread writes straight to the socket until the kernel buffer fills, then hands the
    /// rest to the loop; later events wait behind it. The client must see every event once, whole, in order.
    @Test func directWrites_fromAnotherThread_keepOrderThroughAFullSocket() throws {
        let api = try APIHarness()
        defer { api.stop() }
        let client = try api.stream("/v1/users/u1/stream?events=trigger", receiveBuffer: 4096)
        let count = 3000
        let padding = String(repeating: "p", count: 100)
        // This thread is no event loop: every send takes the direct path when the gate allows.
        for index in 0..<count {
            api.hub.publish(type: "trigger", user: "u1", data: ["n": .int(index), "pad": .string(padding)], seq: nil)
        }
        let events = try client.readEvents(count)
        var numbers: [Int] = []
        for event in events {
            guard let line = event.split(separator: "\n").first(where: { $0.hasPrefix("data: ") }) else { continue }
            let value: JSONValue? = try? JSONParser().parse(String(line.dropFirst(6)))
            if let number = value?.objectValue?["n"]?.numberValue?.int { numbers.append(number) }
        }
        #expect(numbers == Array(0..<count))
        #expect(api.hub.droppedSlowStreams == 0)
    }

    /// Two loops, streams spread over both, writes arriving on either: every stream gets its user's two changes,
    /// in order, whichever thread wrote them.
    @Test func twoLoops_everyStreamGetsItsChangesInOrder() throws {
        let api = try APIHarness { $0.loopCount = 2 }
        defer { api.stop() }
        let users = (0..<60).map { "u\($0)" }
        let clients = try users.map { try api.stream("/v1/users/\($0)/stream?flags=discount") }
        for user in users {
            _ = try api.call("PATCH", "/v1/users/\(user)/context", json: Self.patchVIP)
            _ = try api.call("PATCH", "/v1/users/\(user)/context", json: #"{"ops": [{"op": "removeSegment", "segment": "vip"}]}"#)
        }
        for (user, client) in zip(users, clients) {
            let events = try client.readEvents(2)
            #expect(events[0].contains(#""user":"\#(user)","key":"discount","value":50"#), "\(user): \(events[0])")
            #expect(events[1].contains(#""user":"\#(user)","key":"discount","value":0"#), "\(user): \(events[1])")
        }
    }

    @Test func thousandStreams_allReceiveOneChange() throws {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        limit.rlim_cur = max(limit.rlim_cur, min(limit.rlim_max, 8192))
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        // Every stream comes from 127.0.0.1: lift the per-client cap this test is not about.
        let api = try APIHarness { $0.maxConnectionsPerClient = 2000 }
        defer { api.stop() }
        let clients = try (0..<1000).map { _ in try api.stream("/v1/users/u1/stream") }
        _ = try api.call("PATCH", "/v1/users/u1/context", json: Self.patchVIP)
        var delivered = 0
        for client in clients where try client.readEvents(1)[0].contains(#""value":50"#) { delivered += 1 }
        #expect(delivered == 1000)
    }

    /// HEAD asks for the head GET would send: no events, no subscription, and the connection serves the next
    /// request.
    @Test(arguments: ["/v1/users/u1/stream", "/v1/stream", "/ofrep/v1/events?targetingKey=u1", "/ofrep/v1/events"])
    func head_onAStreamRoute_sendsTheHeadOnly_subscribesNothing_andKeepsTheConnection(path: String) throws {
        let api = try APIHarness()
        defer { api.stop() }
        let client = try TestClient(port: api.server.port)
        try client.send("HEAD \(path) HTTP/1.1\r\nHost: t\r\n\r\nGET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
        let head = try client.readHead()
        #expect(head.status == 200)
        #expect(head.header("Content-Type") == "text/event-stream")
        #expect(head.header("Connection") == nil)
        let next = try client.readResponse()
        #expect(next.status == 200)
        #expect(next.bodyText.contains("ok"))
        #expect(api.hub.streamCount == 0)
        _ = try api.call("PATCH", "/v1/users/u1/context", json: Self.patchVIP)
        #expect(api.hub.streamCount == 0)
    }

    @Test func globalStream_needsAdminAndSeesEveryUser() throws {
        let api = try APIHarness(tokens: [
            Token(name: "ops", secret: "admin-secret-0123456789ab", scopes: [.admin, .write]),
            Token(name: "reader", secret: "reader-secret-0123456789", scopes: [.evaluate])
        ])
        defer { api.stop() }
        #expect(try api.call("GET", "/v1/stream", headers: ["X-API-Key": "reader-secret-0123456789"]).status == 403)
        let client = try api.stream("/v1/stream", headers: ["X-API-Key": "admin-secret-0123456789ab"])
        _ = try api.call("PATCH", "/v1/users/a/context", json: Self.patchVIP, headers: ["X-API-Key": "admin-secret-0123456789ab"])
        _ = try api.call("PATCH", "/v1/users/b/context", json: Self.patchVIP, headers: ["X-API-Key": "admin-secret-0123456789ab"])
        let events = try client.readEvents(2)
        #expect(events[0].contains(#""user":"a""#))
        #expect(events[1].contains(#""user":"b""#))
    }

    /// A stream opened with `X-App-Version` hears answers evaluated for that version, whatever caused the change:
    /// a clock push must not flip a version-dependent flag on it, and a write sent without a version must not hide
    /// a change that version sees.
    @Test func streamWithAnAppVersion_hearsTheChangesOfItsVersion_fromTheClockAndFromWrites() throws {
        let rules = #"""
            {"flags": {"new-ui": {"when": {"appVersion": {"gte": "2.0"}}},
                       "promo": {"when": {"cooldown": {"event": "shown", "for": "1h"}}},
                       "vip-ui": {"when": {"all": [{"appVersion": {"gte": "2.0"}}, {"segment": "vip"}]}}}}
            """#
        let api = try APIHarness(rulesText: rules)
        defer { api.stop() }
        _ = try api.call("PATCH", "/v1/users/u1/context", json: #"{"ops": [{"op": "recordEvent", "event": "shown"}]}"#)
        let client = try api.stream("/v1/users/u1/stream", headers: ["X-App-Version": "2.1"])
        let deadline = ContinuousClock.now + .seconds(2)
        while api.engine.scheduledJobs == 0, ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.005) }
        api.clock.advance(3_600_000)
        api.engine.runDue(now: api.clock.now())
        // A write with no version that a 2.1 app sees as a change.
        _ = try api.call("PATCH", "/v1/users/u1/context", json: #"{"ops": [{"op": "addSegment", "segment": "vip"}]}"#)
        let events = try client.readEvents(2)
        #expect(events[0].contains(#""key":"promo","value":true"#), "\(events)")
        #expect(events[1].contains(#""key":"vip-ui","value":true"#), "\(events)")
    }

    @Test func versionedStream_resumingAfterItClosed_getsTheChangesItsVersionSawMeanwhile() throws {
        let rules = #"{"flags": {"vip-ui": {"when": {"all": [{"appVersion": {"gte": "2.0"}}, {"segment": "vip"}]}}}}"#
        let api = try APIHarness(rulesText: rules)
        defer { api.stop() }
        do {
            _ = try api.stream("/v1/users/u1/stream", headers: ["X-App-Version": "2.1"])
        } // closed: the client is gone
        let deadline = ContinuousClock.now + .seconds(2)
        while api.hub.streamCount > 0, ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.005) }
        _ = try api.call("PATCH", "/v1/users/u1/context", json: #"{"ops": [{"op": "increment", "counter": "x"}]}"#)
        // Sent without a version: only a 2.1 app sees vip-ui change.
        _ = try api.call("PATCH", "/v1/users/u1/context", json: #"{"ops": [{"op": "addSegment", "segment": "vip"}]}"#)
        let resumed = try api.stream("/v1/users/u1/stream", headers: ["X-App-Version": "2.1", "Last-Event-ID": "1"])
        let events = try resumed.readEvents(1)
        #expect(events[0].hasPrefix("id: 2"), "\(events)")
        #expect(events[0].contains(#""key":"vip-ui","value":true"#), "\(events)")
    }

    /// The clock keeps working for a stream that closed within the resume window: a change it alone caused while
    /// the client was away is replayed on resume, exactly as a connected stream would have heard it.
    @Test func resume_afterAGap_replaysAClockDrivenChangeMadeWhileDisconnected() throws {
        let rules = #"{"flags": {"promo": {"when": {"cooldown": {"event": "shown", "for": "1h"}}}}}"#
        let api = try APIHarness(rulesText: rules)
        defer { api.stop() }
        do {
            let client = try api.stream("/v1/users/u1/stream")
            _ = try api.call("PATCH", "/v1/users/u1/context", json: #"{"ops": [{"op": "recordEvent", "event": "shown"}]}"#)
            #expect(try client.readEvents(1)[0].contains(#""key":"promo","value":false"#))
        } // the client goes away
        let deadline = ContinuousClock.now + .seconds(2)
        while api.hub.streamCount > 0, ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.005) }
        api.clock.advance(3_600_000)
        api.engine.runDue(now: api.clock.now())
        let resumed = try api.stream("/v1/users/u1/stream", headers: ["Last-Event-ID": "1"])
        let events = try resumed.readEvents(1)
        #expect(events[0].contains(#""key":"promo","value":true,"previous":false"#), "\(events)")
    }

    @Test func reconnectingInALoop_remembersAFewClosedStreamsPerUser_notOnePerReconnect() throws {
        let api = try APIHarness()
        defer { api.stop() }
        for _ in 0..<12 {
            _ = try api.stream("/v1/users/u1/stream")
        }
        let deadline = ContinuousClock.now + .seconds(2)
        while api.hub.streamCount > 0, ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.005) }
        #expect(api.hub.streamCount == 0)
        #expect(api.hub.rememberedClosedStreams == StreamHub.closedStreamsPerUser)
        // A resume takes the place of the stream it continues.
        let resumed = try api.stream("/v1/users/u1/stream", headers: ["Last-Event-ID": "0"])
        _ = resumed
        #expect(api.hub.rememberedClosedStreams == StreamHub.closedStreamsPerUser - 1)
    }

    @Test func rulesReload_sendsRulesEvent() throws {
        let api = try APIHarness()
        defer { api.stop() }
        let client = try api.stream("/v1/users/u1/stream")
        _ = try api.call("POST", "/v1/admin/reload")
        #expect(try client.readEvents(1)[0].contains("event: rules"))
    }
}

@Suite struct TriggerTimingTests {
    static let rules = #"""
        {"flags": {}, "triggers": {
          "later": {"on": ["appStarted"], "when": {"not": {"flag": "opted_out"}}, "delay": "5s", "throttle": "1 month"},
          "edgy": {"on": ["appStarted"], "when": {"donations": {"event": "appStarted", "gte": 2}}, "edge": true}}}
        """#

    @Test func delayedTrigger_firesAtExpiryOnlyIfItStillHolds() throws {
        let api = try APIHarness(rulesText: Self.rules)
        defer { api.stop() }
        let client = try api.stream("/v1/users/u1/stream?events=trigger")
        #expect(try api.call("POST", "/v1/users/u1/events/appStarted").body?["fired"] == [])
        api.clock.advance(5000)
        api.engine.runDue(now: api.clock.now())
        let event = try client.readEvents(1)[0]
        #expect(event.contains(#""trigger":"later""#))
        #expect(try api.call("GET", "/v1/users/u1").body?["triggers"]?["later"] != nil)
        // A second user opts out during the delay: no fire.
        _ = try api.call("POST", "/v1/users/u2/events/appStarted")
        _ = try api.call("PATCH", "/v1/users/u2/context", json: #"{"ops": [{"op": "setFlag", "flag": "opted_out", "value": true}]}"#)
        api.clock.advance(5000)
        api.engine.runDue(now: api.clock.now())
        #expect(try api.call("GET", "/v1/users/u2").body?["triggers"] == nil)
    }

    @Test func edgeTrigger_firesOnlyOnFalseToTrue() throws {
        let api = try APIHarness(rulesText: Self.rules)
        defer { api.stop() }
        #expect(try api.call("POST", "/v1/users/u1/events/appStarted").body?["fired"] == [])
        #expect(try api.call("POST", "/v1/users/u1/events/appStarted").body?["fired"]?.arrayValue?.first?["trigger"] == "edgy")
        #expect(try api.call("POST", "/v1/users/u1/events/appStarted").body?["fired"] == [])
    }

    @Test func scheduler_popsInOrderAndReplacesAJobsInstant() {
        var scheduler = ClockScheduler()
        scheduler.schedule(.reevaluate(user: "a"), at: Instant(milliseconds: 30))
        scheduler.schedule(.reevaluate(user: "b"), at: Instant(milliseconds: 10))
        scheduler.schedule(.reevaluate(user: "a"), at: Instant(milliseconds: 20))
        #expect(scheduler.nextDue() == Instant(milliseconds: 10))
        #expect(scheduler.popDue(now: Instant(milliseconds: 25)).map(\.job) == [.reevaluate(user: "b"), .reevaluate(user: "a")])
        #expect(scheduler.isEmpty)
    }
}

@Suite(.serialized) struct StreamLimitTests {
    @Test func streamCap_answers503() throws {
        var options = StreamHub.Options()
        options.maxStreams = 2
        let api = try APIHarness(hubOptions: options)
        defer { api.stop() }
        let first = try api.stream("/v1/users/a/stream")
        let second = try api.stream("/v1/users/b/stream")
        let refused = try api.call("GET", "/v1/users/c/stream")
        #expect(refused.status == 503)
        #expect(refused.errorCode == "too_many_streams")
        _ = (first, second)
    }

    @Test func includeContext_sendsContextEvents_whileSuchAStreamIsOpen_andForTheResumeWindowAfter() throws {
        var options = StreamHub.Options()
        options.retainFor = .milliseconds(300)
        let api = try APIHarness(hubOptions: options)
        defer { api.stop() }
        var client: TestClient? = try api.stream("/v1/users/u1/stream?include=context&events=context")
        let plain = try api.stream("/v1/users/u1/stream")
        _ = try api.call("PATCH", "/v1/users/u1/context", json: #"{"ops": [{"op": "increment", "counter": "k", "by": 2}]}"#)
        let event = try client!.readEvents(1)[0]
        #expect(event.contains("event: context"))
        #expect(event.contains(#""counters":{"k":2}"#))
        #expect(api.hub.wantsContext(for: "u1"))
        #expect(!api.hub.wantsContext(for: "u2"))
        client = nil
        let deadline = ContinuousClock.now + .seconds(3)
        while api.hub.streamCount > 1, ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.01) }
        // Still made for the resume window, so a reconnecting client gets the writes it missed; then no longer.
        #expect(api.hub.wantsContext(for: "u1"))
        Thread.sleep(forTimeInterval: 0.4)
        #expect(!api.hub.wantsContext(for: "u1"), "interest ends with the resume window")
        _ = plain
    }

    /// Heartbeats come from each stream's own quiet time: an event resets it, and a stream that keeps quiet gets
    /// one comment per interval.
    @Test func quietStream_getsAHeartbeatPerInterval_andAnEventPostponesIt() throws {
        let api = try APIHarness(configure: { $0.streamHeartbeat = .milliseconds(600) })
        defer { api.stop() }
        let client = try api.stream("/v1/users/u1/stream?flags=discount")
        let opened = ContinuousClock.now
        Thread.sleep(forTimeInterval: 0.3)
        _ = try api.call("PATCH", "/v1/users/u1/context", json: StreamTests.patchVIP)
        let wrote = ContinuousClock.now
        #expect(try client.readEvents(1)[0].contains("event: flag"))
        let heartbeat = try client.readEvents(1)[0]
        let firstBeat = ContinuousClock.now
        #expect(heartbeat == ": keep-alive")
        // Counted from the event, not from the stream's start; deadlines are checked every 50 ms.
        #expect(firstBeat - wrote >= .milliseconds(550), "heartbeat \(firstBeat - wrote) after the event")
        #expect(firstBeat - opened < .milliseconds(1_500))
        #expect(try client.readEvents(1)[0] == ": keep-alive")
        let secondBeat = ContinuousClock.now
        #expect(secondBeat - firstBeat >= .milliseconds(550) && secondBeat - firstBeat < .milliseconds(1_000))
    }

    /// With the real clock: a cooldown ending reaches the stream within 100 ms of its instant, with no write.
    @Test func cooldownEnding_arrivesWithin100ms() throws {
        let rules = #"{"flags": {"promo": {"when": {"cooldown": {"event": "shown", "for": 1}}}}}"#
        let api = try APIHarness(rulesText: rules, realClock: true)
        defer { api.stop() }
        let client = try api.stream("/v1/users/u1/stream")
        _ = try api.call("PATCH", "/v1/users/u1/context", json: #"{"ops": [{"op": "recordEvent", "event": "shown"}]}"#)
        let shownAt = try #require(try api.call("GET", "/v1/users/u1").body?["events"]?["shown"]?.stringValue.flatMap(ISO8601.parse))
        let first = try client.readEvents(1)[0]
        #expect(first.contains(#""value":false"#))
        let second = try client.readEvents(1)[0]
        let arrived = SystemClock().now()
        #expect(second.contains(#""value":true"#))
        let lateness = arrived - (shownAt + 1000)
        #expect(lateness >= 0 && lateness < 100, "arrived \(lateness) ms after the instant")
    }
}

@Suite struct TriggerThrottleTests {
    @Test func monthlyThrottle_acrossAMonthEnd() throws {
        let rules = #"{"flags": {}, "triggers": {"ask": {"on": ["appStarted"], "when": {"always": true}, "throttle": "1 month"}}}"#
        let api = try APIHarness(rulesText: rules)
        defer { api.stop() }
        // Fires on Jan 31; a month later in the calendar is Feb 28, not Mar 3.
        let jan31 = ISO8601.parse("2026-01-31T10:00:00Z")!
        api.clock.advance(jan31 - api.clock.now())
        #expect(try api.call("POST", "/v1/users/u1/events/appStarted").body?["fired"]?.arrayValue?.count == 1)
        api.clock.advance(ISO8601.parse("2026-02-28T09:59:59Z")! - api.clock.now())
        #expect(try api.call("POST", "/v1/users/u1/events/appStarted").body?["fired"] == [])
        api.clock.advance(1000)
        #expect(try api.call("POST", "/v1/users/u1/events/appStarted").body?["fired"]?.arrayValue?.count == 1)
    }
}
