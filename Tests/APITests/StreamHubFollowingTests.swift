import Foundation
import HTTP
import Rules
import Testing

@testable import API
@testable import HTTPServer

/// The resume window keeps a user's flag and trigger events only while the user is followed: a stream of theirs
/// (or a global one) is open, or closed less than `retainFor` ago. A resume is exact over a stretch followed
/// without a gap; anything else gets `reset`.
@Suite struct StreamHubFollowingTests {
    typealias Captured = StreamHubPendingEventTests.Captured

    static func change(_ hub: StreamHub, user: String, seq: UInt64) {
        let evaluation = Evaluation(key: "promo", value: .int(Int(seq)), reason: .targetingMatch, matched: true)
        hub.publishFlag(user: user, key: "promo", evaluation: evaluation, previous: .int(Int(seq) - 1), seq: seq, appVersion: nil)
    }

    static func open(_ hub: StreamHub, user: String?, after id: EventID? = nil) -> (EventStream, Captured) {
        let captured = Captured()
        let stream = StreamHubPendingEventTests.stream(captured)
        #expect(hub.subscribe(stream, user: user, flags: nil, types: nil, lastEventID: id, currentValues: [:], resetState: { .null }))
        return (stream, captured)
    }

    static func events(_ captured: Captured) -> [String] {
        captured.text.components(separatedBy: "\n\n").filter { $0.hasPrefix("id: ") }
    }

    /// Most writes are for users nobody streams: their events used to be built, sized and held for the window (a
    /// tenth of a donation's instructions), and a stream that never heard them could "resume" to them.
    @Test func unfollowedUser_changesAreNotKept_andAResumeOverThemGetsReset() {
        let hub = StreamHub(startSeq: 0)
        for seq in 1...10 { Self.change(hub, user: "u0", seq: UInt64(seq)) }
        #expect(hub.heldEventBytes == 0)
        #expect(hub.lastID == EventID(seq: 10))
        let (_, resumed) = Self.open(hub, user: "u0", after: EventID(seq: 0))
        let events = Self.events(resumed)
        #expect(events.count == 1)
        #expect(events.first?.hasPrefix("id: 10\nevent: reset") == true)
    }

    @Test func closedStream_keepsItsUserFollowedForTheWindow_andItsResumeIsExact() {
        let hub = StreamHub(startSeq: 0)
        let (first, _) = Self.open(hub, user: "u0")
        first.markClosed(.peerClosed)
        #expect(hub.streamCount == 0)
        for seq in 1...6 { Self.change(hub, user: seq % 2 == 0 ? "u0" : "u1", seq: UInt64(seq)) }
        let (_, resumed) = Self.open(hub, user: "u0", after: EventID(seq: 0))
        // u0's three changes, in order, and nothing of u1's, which nobody followed.
        #expect(Self.events(resumed).map { $0.prefix(6) } == ["id: 2\n", "id: 4\n", "id: 6\n"])
        let (_, u1) = Self.open(hub, user: "u1", after: EventID(seq: 0))
        #expect(Self.events(u1).first?.contains("event: reset") == true)
    }

    @Test func followingLapsesAfterTheWindow_andStartsAfreshWithTheNextStream() throws {
        var options = StreamHub.Options()
        options.retainFor = .milliseconds(50)
        let hub = StreamHub(options: options, startSeq: 0)
        let (first, _) = Self.open(hub, user: "u0")
        first.markClosed(.peerClosed)
        Self.change(hub, user: "u0", seq: 1)
        Thread.sleep(forTimeInterval: 0.12)
        // The window lapsed: seq 2 is not kept, so a resume from 1 cannot be exact.
        Self.change(hub, user: "u0", seq: 2)
        let (second, late) = Self.open(hub, user: "u0", after: EventID(seq: 1))
        #expect(Self.events(late).first?.contains("event: reset") == true)
        // Followed again from seq 2 on: a stream that heard 3 and resumes from there gets 4 exactly.
        Self.change(hub, user: "u0", seq: 3)
        second.markClosed(.peerClosed)
        Self.change(hub, user: "u0", seq: 4)
        let (_, resumed) = Self.open(hub, user: "u0", after: EventID(seq: 3))
        #expect(Self.events(resumed).map { $0.prefix(6) } == ["id: 4\n"])
    }

    @Test func openGlobalStream_followsEveryUser() {
        let hub = StreamHub(startSeq: 0)
        let (_, global) = Self.open(hub, user: nil)
        for seq in 1...3 { Self.change(hub, user: "u\(seq)", seq: UInt64(seq)) }
        #expect(Self.events(global).count == 3)
        #expect(hub.heldEventBytes > 0)
        let (_, resumed) = Self.open(hub, user: "u2", after: EventID(seq: 0))
        #expect(Self.events(resumed).map { $0.prefix(6) } == ["id: 2\n"])
    }
}
