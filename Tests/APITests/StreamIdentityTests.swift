import Foundation
import NetworkFixtures
import Rules
import Store
import Testing

@testable import API
@testable import Engine
@testable import HTTPServer
@testable import specd

/// Users (and flag keys) are bytes: NFC `café` and NFD `café` render alike but are two users, so their live
/// streams, clock jobs and delayed triggers must never mix.
@Suite(.serialized) struct StreamIdentityTests {
    /// NFC `café` (`63 61 66 c3 a9`) and NFD `café` (`63 61 66 65 cc 81`), as they travel in a path.
    static let nfcPath = "caf%C3%A9"
    static let nfdPath = "cafe%CC%81"

    /// Live fan-out and replay from `Last-Event-ID` both filter by user: neither may hand one spelling's events
    /// to the other's stream.
    @Test(arguments: [false, true])
    func nfdStream_receivesNothingFromAWriteToTheNFCUser(resumed: Bool) throws {
        let api = try APIHarness()
        defer { api.stop() }
        let nfcWrite =
            #"{"ops": [{"op": "addSegment", "segment": "vip"}, {"op": "setAttribute", "key": "email", "value": "nfc-secret@example.com"}]}"#
        var client: TestClient
        if resumed {
            // The NFD user's client listened, dropped, and resumes over the NFC user's write.
            var first: TestClient? = try api.stream("/v1/users/\(Self.nfdPath)/stream?include=context")
            first = nil
            let closed = ContinuousClock.now + .seconds(3)
            while api.hub.streamCount > 0, ContinuousClock.now < closed { Thread.sleep(forTimeInterval: 0.01) }
            #expect(first == nil && api.hub.streamCount == 0)
            #expect(try api.call("PATCH", "/v1/users/\(Self.nfcPath)/context", json: nfcWrite).status == 200)
            client = try api.stream("/v1/users/\(Self.nfdPath)/stream?include=context", headers: ["Last-Event-ID": "0"])
        } else {
            client = try api.stream("/v1/users/\(Self.nfdPath)/stream?include=context")
            #expect(try api.call("PATCH", "/v1/users/\(Self.nfcPath)/context", json: nfcWrite).status == 200)
        }
        // The NFD user's own write (log seq 2) is the first thing its stream may see: its flag events, then its
        // context. Nothing from seq 1, the NFC user's write.
        let own = #"{"ops": [{"op": "setAttribute", "key": "email", "value": "nfd-own@example.com"}]}"#
        #expect(try api.call("PATCH", "/v1/users/\(Self.nfdPath)/context", json: own).status == 200)
        var events: [String] = []
        while events.count < 10, events.last?.contains("event: context") != true { events += try client.readEvents(1) }
        #expect(events.last?.contains("nfd-own@example.com") == true)
        for event in events {
            #expect(event.hasPrefix("id: 2"))
            #expect(!event.contains("nfc-secret"))
        }
    }

    @Test func scheduler_keepsJobsForBothSpellingsApart() {
        var scheduler = ClockScheduler()
        scheduler.schedule(.reevaluate(user: "caf\u{E9}"), at: Instant(milliseconds: 10))
        scheduler.schedule(.reevaluate(user: "cafe\u{301}"), at: Instant(milliseconds: 20))
        #expect(scheduler.count == 2)
        #expect(scheduler.isScheduled(.reevaluate(user: "caf\u{E9}")))
        #expect(scheduler.isScheduled(.reevaluate(user: "cafe\u{301}")))
        scheduler.cancel(.reevaluate(user: "cafe\u{301}"))
        #expect(scheduler.isScheduled(.reevaluate(user: "caf\u{E9}")))
        #expect(scheduler.popDue(now: Instant(milliseconds: 40)).map(\.job) == [.reevaluate(user: "caf\u{E9}")])
    }

    @Test func pendingFires_keepBothSpellingsApart_evenWhenTheFirstPendingOneWins() {
        var pending = PendingFires()
        let due = Instant(milliseconds: 10)
        let nfc = pending.add(user: "caf\u{E9}", trigger: "t", due: due, request: RequestAttributes(userID: "caf\u{E9}"), mode: .first)
        let nfd = pending.add(user: "cafe\u{301}", trigger: "t", due: due, request: RequestAttributes(userID: "cafe\u{301}"), mode: .first)
        #expect(nfc.fire != nil && nfd.fire != nil)
        let restarted = pending.add(user: "cafe\u{301}", trigger: "t", due: due, request: RequestAttributes(userID: "cafe\u{301}"), mode: .restart)
        #expect(restarted.replaced == [nfd.fire!.id])
        #expect(pending.count == 2)
    }

    @Test func delayedTriggers_forBothSpellings_bothFire() throws {
        let api = try APIHarness(rulesText: TriggerTimingTests.rules)
        defer { api.stop() }
        #expect(try api.call("POST", "/v1/users/\(Self.nfcPath)/events/appStarted").status == 200)
        #expect(try api.call("POST", "/v1/users/\(Self.nfdPath)/events/appStarted").status == 200)
        #expect(api.engine.scheduledJobs == 2)
        api.clock.advance(5000)
        api.engine.runDue(now: api.clock.now())
        for path in [Self.nfcPath, Self.nfdPath] {
            // The fire is written asynchronously; the read that follows sees it once acknowledged.
            let deadline = ContinuousClock.now + .seconds(2)
            var fired = false
            while !fired, ContinuousClock.now < deadline {
                fired = try api.call("GET", "/v1/users/\(path)").body?["triggers"]?["later"] != nil
                if !fired { Thread.sleep(forTimeInterval: 0.01) }
            }
            #expect(fired, "user \(path)")
        }
    }

    /// Two flags whose keys render alike: NFC `café` turns on with `gold`, NFD `café` with `vip`.
    static let twinFlagRules =
        "{\"flags\": {"
        + "\"caf\u{E9}\": {\"cases\": [{\"when\": {\"segment\": \"gold\"}, \"value\": 1}], \"fallback\": 0}, "
        + "\"cafe\u{301}\": {\"cases\": [{\"when\": {\"segment\": \"vip\"}, \"value\": 1}], \"fallback\": 0}}}"

    /// `?flags=` names flags by bytes, and each stream remembers each flag's last value by bytes: the NFD flag's
    /// change neither passes an NFC-only filter nor masks the NFC flag's own later change.
    @Test(arguments: [("", ["id: 1\n", "id: 2\n"]), ("?flags=\(nfcPath)", ["id: 2\n"])])
    func twinFlagKeys_areFilteredAndTrackedApart(query: String, expectedIDs: [String]) throws {
        let api = try APIHarness(rulesText: Self.twinFlagRules)
        defer { api.stop() }
        let client = try api.stream("/v1/users/u1/stream\(query)")
        #expect(try api.call("PATCH", "/v1/users/u1/context", json: #"{"ops": [{"op": "addSegment", "segment": "vip"}]}"#).status == 200)
        #expect(try api.call("PATCH", "/v1/users/u1/context", json: #"{"ops": [{"op": "addSegment", "segment": "gold"}]}"#).status == 200)
        client.setTimeout(1)
        let events = try client.readEvents(expectedIDs.count)
        #expect(zip(events, expectedIDs).allSatisfy { $0.hasPrefix($1) }, "\(events)")
    }
}
