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

    /// The stream heard exactly one event, and it starts with `head` (its id and type).
    static func expectOnlyEvent(_ captured: Captured, startingWith head: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let events = events(captured)
        #expect(events.count == 1, sourceLocation: sourceLocation)
        #expect(events.first?.hasPrefix(head) == true, sourceLocation: sourceLocation)
    }

    /// Most writes are for users nobody streams: their events used to be built, sized and held for the window (a
    /// tenth of a donation's instructions), and a stream that never heard them could "resume" to them.
    @Test func unfollowedUser_changesAreNotKept_andAResumeOverThemGetsReset() {
        let hub = StreamHub(startSeq: 0)
        for seq in 1...10 { Self.change(hub, user: "u0", seq: UInt64(seq)) }
        #expect(hub.heldEventBytes == 0)
        #expect(hub.lastID == EventID(seq: 10))
        let (_, resumed) = Self.open(hub, user: "u0", after: EventID(seq: 0))
        Self.expectOnlyEvent(resumed, startingWith: "id: 10\nevent: reset")
    }

    @Test func closedStream_keepsItsUserFollowedForTheWindow_andItsResumeIsExact() {
        let hub = StreamHub(startSeq: 0)
        let (first, _) = Self.open(hub, user: "u0")
        first.markClosed(.peerClosed)
        #expect(hub.streamCount == 0)
        for seq in 1...6 { Self.change(hub, user: seq % 2 == 0 ? "u0" : "u1", seq: UInt64(seq)) }
        let (_, resumed) = Self.open(hub, user: "u0", after: EventID(seq: 0))
        // u0's three changes, in order, and nothing of u1's, which nobody followed.
        #expect(Self.events(resumed).map { $0.prefix(17) } == ["id: 2\nevent: flag", "id: 4\nevent: flag", "id: 6\nevent: flag"])
        let (_, u1) = Self.open(hub, user: "u1", after: EventID(seq: 0))
        #expect(Self.events(u1).first?.contains("event: reset") == true)
    }

    @Test func followingLapsesAfterTheWindow_andStartsAfreshWithTheNextStream() throws {
        var options = StreamHub.Options()
        options.retainFor = .milliseconds(50)
        let hub = StreamHub(options: options, startSeq: 0)
        let (first, _) = Self.open(hub, user: "u0")
        first.markClosed(.peerClosed)
        // Closes are applied when the hub is next locked: the window runs from here.
        #expect(hub.streamCount == 0)
        Self.change(hub, user: "u0", seq: 1)
        Thread.sleep(forTimeInterval: 0.12)
        // The window lapsed: seq 2 is not kept, so a resume from 1 cannot be exact.
        Self.change(hub, user: "u0", seq: 2)
        let (second, late) = Self.open(hub, user: "u0", after: EventID(seq: 1))
        #expect(Self.events(late).first?.contains("event: reset") == true)
        // Followed again from seq 2 on: a stream that heard 3 and resumes from there gets 4 exactly.
        Self.change(hub, user: "u0", seq: 3)
        second.markClosed(.peerClosed)
        #expect(hub.streamCount == 0)
        Self.change(hub, user: "u0", seq: 4)
        let (_, resumed) = Self.open(hub, user: "u0", after: EventID(seq: 3))
        #expect(Self.events(resumed).map { $0.prefix(17) } == ["id: 4\nevent: flag"])
    }

    @Test func openGlobalStream_followsEveryUser() {
        let hub = StreamHub(startSeq: 0)
        let (_, global) = Self.open(hub, user: nil)
        for seq in 1...3 { Self.change(hub, user: "u\(seq)", seq: UInt64(seq)) }
        #expect(Self.events(global).count == 3)
        #expect(hub.heldEventBytes > 0)
        let (_, resumed) = Self.open(hub, user: "u2", after: EventID(seq: 0))
        #expect(Self.events(resumed).map { $0.prefix(17) } == ["id: 2\nevent: flag"])
    }
}

/// The races and gaps a second reader found in the first version of following: a stream's values are read before
/// the hub's lock is taken, and a resume made exact by a global stream must stay exact for the user's own stream.
@Suite struct StreamHubFollowingRaceTests {
    typealias Captured = StreamHubPendingEventTests.Captured
    typealias Following = StreamHubFollowingTests

    /// Found in review: a resume of a user nobody followed read its reset state, a write landed before the hub's
    /// lock, and the stream got the stale reset under an id past the write: the change was never sent.
    @Test func resumeOfAnUnfollowedUser_getsTheWritePublishedWhileItsResetWasRead() {
        let hub = StreamHub(startSeq: 0)
        Following.change(hub, user: "u0", seq: 1)
        let readAt = hub.beginFollowing("u0")
        let stale: JSONValue = ["user": "u0", "flags": ["promo": 1]]
        Following.change(hub, user: "u0", seq: 2)
        let captured = Captured()
        #expect(
            hub.subscribe(
                StreamHubPendingEventTests.stream(captured), user: "u0", flags: nil, types: nil, lastEventID: EventID(seq: 0),
                readAt: readAt, currentValues: [ByteKey("promo"): .int(1)], resetState: { stale }))
        // Seq 1 was not kept, so the resume is reset; seq 2 was, and follows the stale reset.
        let events = Following.events(captured)
        #expect(events.count == 2)
        #expect(events.first?.hasPrefix("id: 2\nevent: reset") == true)
        #expect(events.last?.hasPrefix("id: 2\nevent: flag") == true && events.last?.contains(#""value":2"#) == true)
        // A client that had heard seq 1 resumes exactly: following began there.
        let (_, exact) = Following.open(hub, user: "u0", after: EventID(seq: 1))
        #expect(Following.events(exact).map { $0.prefix(17) } == ["id: 2\nevent: flag"])
    }

    /// The same race for a new stream (it was there before following too): a change published between reading the
    /// values and subscribing is sent; one the values already hold is not sent twice.
    @Test func newStream_getsTheChangesPublishedWhileItsValuesWereRead_once() {
        let hub = StreamHub(startSeq: 0)
        let readAt = hub.beginFollowing("u0")
        Following.change(hub, user: "u0", seq: 1)
        Following.change(hub, user: "u0", seq: 2)
        let captured = Captured()
        // The values were read after seq 1 and before seq 2.
        #expect(
            hub.subscribe(
                StreamHubPendingEventTests.stream(captured), user: "u0", flags: nil, types: nil, lastEventID: nil, readAt: readAt,
                currentValues: [ByteKey("promo"): .int(1)], resetState: { .null }))
        let events = Following.events(captured)
        #expect(events.count == 1)
        #expect(events.first?.hasPrefix("id: 2\nevent: flag") == true)
    }

    /// Found in review: a user stream resumed exactly through a global stream's following started its own at the
    /// hub's last id, so after the global window lapsed a resume from the client's own last id was reset.
    @Test func resumeMadeExactByAGlobalStream_staysExactForTheUsersOwnStream() throws {
        var options = StreamHub.Options()
        options.retainFor = .milliseconds(300)
        let hub = StreamHub(options: options, startSeq: 0)
        let (global, _) = Following.open(hub, user: nil)
        for seq in 1...3 { Following.change(hub, user: "u0", seq: UInt64(seq)) }
        Following.change(hub, user: "u1", seq: 4)
        let (own, replayed) = Following.open(hub, user: "u0", after: EventID(seq: 0))
        #expect(Following.events(replayed).count == 3)
        global.markClosed(.peerClosed)
        #expect(hub.streamCount == 1)
        Thread.sleep(forTimeInterval: 0.15)
        own.markClosed(.peerClosed)
        #expect(hub.streamCount == 0)
        Following.change(hub, user: "u0", seq: 5)
        Thread.sleep(forTimeInterval: 0.2)
        // The global window has lapsed; u0's own has not, and it covers everything after 3.
        let (_, resumed) = Following.open(hub, user: "u0", after: EventID(seq: 3))
        Following.expectOnlyEvent(resumed, startingWith: "id: 5\nevent: flag")
    }

    @Test func triggerFiringsOfAnUnfollowedUser_areNotKept() {
        let hub = StreamHub(startSeq: 0)
        for seq in 1...5 {
            hub.publish(.triggerFired(user: "u0", trigger: "welcome", at: Instant(milliseconds: 1_773_144_000_000), seq: UInt64(seq)))
        }
        #expect(hub.heldEventBytes == 0)
        #expect(hub.lastID == EventID(seq: 5))
    }
}

/// An OFREP stream holds its starting values to tell news from repeats: a change published while they were read
/// was lost, and the next change back to the stale value was then no news, so the client refetched neither.
@Suite struct StreamHubRefetchRaceTests {
    @Test func refetchStream_isToldOnceOfChangesPublishedWhileItsValuesWereRead() {
        let hub = StreamHub(startSeq: 0)
        let readAt = hub.beginFollowing("u0")
        StreamHubFollowingTests.change(hub, user: "u0", seq: 1)
        StreamHubFollowingTests.change(hub, user: "u0", seq: 2)
        hub.publish(.triggerFired(user: "u0", trigger: "welcome", at: Instant(milliseconds: 1_773_144_000_000), seq: 3))
        let captured = StreamHubPendingEventTests.Captured()
        // Read before seq 1: promo was 0.
        #expect(
            hub.subscribe(
                StreamHubPendingEventTests.stream(captured), user: "u0", flags: nil, types: nil, refetchOnly: true, lastEventID: nil,
                readAt: readAt, currentValues: [ByteKey("promo"): .int(0)], resetState: { [:] }))
        let events = StreamHubFollowingTests.events(captured)
        #expect(events.count == 1)
        #expect(events.first?.hasPrefix("id: 2\nevent: message") == true && events.first?.contains("refetchEvaluation") == true)
        // Its last seen value is the newest (2), not the stale 0: 2 again is no news, and 0 is.
        for (seq, value) in [(4, 2), (5, 0)] {
            let evaluation = Evaluation(key: "promo", value: .int(value), reason: .targetingMatch, matched: true)
            hub.publishFlag(user: "u0", key: "promo", evaluation: evaluation, previous: nil, seq: UInt64(seq), appVersion: nil)
        }
        let after = StreamHubFollowingTests.events(captured)
        #expect(after.count == 2)
        #expect(after.last?.hasPrefix("id: 5\nevent: message") == true)
    }

    @Test func refetchStream_readAfterTheChanges_isToldNothingMore() {
        let hub = StreamHub(startSeq: 0)
        let readAt = hub.beginFollowing("u0")
        StreamHubFollowingTests.change(hub, user: "u0", seq: 1)
        let captured = StreamHubPendingEventTests.Captured()
        // Read after seq 1: promo already 1.
        #expect(
            hub.subscribe(
                StreamHubPendingEventTests.stream(captured), user: "u0", flags: nil, types: nil, refetchOnly: true, lastEventID: nil,
                readAt: readAt, currentValues: [ByteKey("promo"): .int(1)], resetState: { [:] }))
        #expect(StreamHubFollowingTests.events(captured).isEmpty)
    }
}

/// A resume counts as exact only while its version is evaluated: a stream let go with the last of its version leaves
/// its user (or, for a global one, every user) followed, but that version's answers are no longer made.
@Suite struct StreamHubVersionExactnessTests {
    typealias Captured = StreamHubPendingEventTests.Captured
    typealias Following = StreamHubFollowingTests

    /// A stream with that app version, resuming from `id`.
    static func resume(_ hub: StreamHub, user: String?, appVersion: String?, after id: EventID) -> Captured {
        let captured = Captured()
        #expect(
            hub.subscribe(
                StreamHubPendingEventTests.stream(captured), user: user, flags: nil, types: nil, appVersion: appVersion, lastEventID: id,
                currentValues: [:], resetState: { .null }))
        return captured
    }

    /// Past four closed streams a user's oldest is let go, and with it the only stream of its version: nobody
    /// evaluates that version any more, so its resume cannot be exact (found in review: it was replayed).
    @Test func aClosedStreamLetGo_withTheLastOfItsVersion_resumesWithReset() {
        let hub = StreamHub(startSeq: 0)
        for minor in 0..<5 { StreamHubResumeMemoryTests.openAndClose(hub, user: "u", appVersion: "1.\(minor)") }
        #expect(!hub.appVersions(hearing: "u").contains("1.0"))
        Following.change(hub, user: "u", seq: 1)
        Following.expectOnlyEvent(Self.resume(hub, user: "u", appVersion: "1.0", after: EventID(seq: 0)), startingWith: "id: 1\nevent: reset")
        // Ids sent after the stream was let go resume exactly (the changes here are version-less).
        Following.change(hub, user: "u", seq: 2)
        Following.expectOnlyEvent(Self.resume(hub, user: "u", appVersion: nil, after: EventID(seq: 1)), startingWith: "id: 2\nevent: flag")
    }

    /// A global stream follows every user, but does not evaluate the trimmed version for them: it must not vouch
    /// for that resume either (found in review: it was replayed).
    @Test func aClosedStreamLetGo_isNotVouchedForByAnOpenGlobalStream() {
        let hub = StreamHub(startSeq: 0)
        let (_, _) = Following.open(hub, user: nil)
        for minor in 0..<5 { StreamHubResumeMemoryTests.openAndClose(hub, user: "u", appVersion: "1.\(minor)") }
        Following.change(hub, user: "u", seq: 1)
        Following.expectOnlyEvent(Self.resume(hub, user: "u", appVersion: "1.0", after: EventID(seq: 0)), startingWith: "id: 1\nevent: reset")
    }

    /// A global stream of one version, resumable: opened, then closed.
    static func openAndCloseGlobal(_ hub: StreamHub, appVersion: String) {
        let stream = StreamHubPendingEventTests.stream(Captured())
        #expect(
            hub.subscribe(
                stream, user: nil, flags: nil, types: nil, appVersion: appVersion, lastEventID: nil, currentValues: [:],
                resetState: { .null }))
        stream.markClosed(.peerClosed)
        _ = hub.streamCount
    }

    /// The last global stream of a version closed: its version stays evaluated for the window, as a closed user
    /// stream's does, so its resume is exact. (A first fix reset it instead, and every reconnect of a versioned
    /// global stream got `reset` for nothing: found in review.)
    @Test func theLastGlobalStreamOfAVersionClosing_keepsItsVersionEvaluated_andItsResumeExact() {
        let hub = StreamHub(startSeq: 0)
        Following.change(hub, user: "x", seq: 1)
        Self.openAndCloseGlobal(hub, appVersion: "2.0")
        #expect(hub.appVersions(hearing: "anyone").contains("2.0"))
        let resumed = Self.resume(hub, user: nil, appVersion: "2.0", after: EventID(seq: 1))
        #expect(!resumed.text.contains("event: reset"))
    }

    /// The versions are the clients': past 16, the one nearest to lapsing is let go, and with it the exactness of
    /// resumes from ids already sent.
    @Test func pastSixteenClosedGlobalVersions_theOldestIsLetGo_andEarlierIdsResumeWithReset() {
        let hub = StreamHub(startSeq: 0)
        Following.change(hub, user: "x", seq: 1)
        for minor in 0...16 { Self.openAndCloseGlobal(hub, appVersion: "1.\(minor)") }
        #expect(!hub.appVersions(hearing: "anyone").contains("1.0"))
        #expect(hub.appVersions(hearing: "anyone").contains("1.16"))
        Following.change(hub, user: "x", seq: 2)
        Following.expectOnlyEvent(Self.resume(hub, user: nil, appVersion: "1.0", after: EventID(seq: 1)), startingWith: "id: 2\nevent: reset")
    }
}
