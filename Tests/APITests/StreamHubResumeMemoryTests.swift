import Foundation
import HTTP
import Rules
import Testing

@testable import API
@testable import HTTPServer

/// The resume window remembers at most `resumeUsers` users without an open stream: a client that opened and
/// closed one stream per made-up user id grew the daemon by about 2 KB a stream for the whole window.
@Suite struct StreamHubResumeMemoryTests {
    typealias Captured = StreamHubPendingEventTests.Captured
    typealias Following = StreamHubFollowingTests

    static func hub(resumeUsers: Int) -> StreamHub {
        var options = StreamHub.Options()
        options.resumeUsers = resumeUsers
        return StreamHub(options: options, startSeq: 0)
    }

    /// A stream that saw a flag value, so its close is remembered for resume (with its last values), then closed.
    static func openAndClose(_ hub: StreamHub, user: String, appVersion: String? = nil) {
        let stream = StreamHubPendingEventTests.stream(Captured())
        #expect(
            hub.subscribe(
                stream, user: user, flags: nil, types: nil, appVersion: appVersion, lastEventID: nil,
                currentValues: [ByteKey("promo"): .int(0)], resetState: { .null }))
        stream.markClosed(.peerClosed)
        // Closes are applied when the hub is next locked.
        _ = hub.streamCount
    }

    /// A change published between `user`'s lease (`readAt`) and their stream's subscribe reaches the new stream.
    static func expectChangeAfterLeaseHeard(_ hub: StreamHub, user: String, readAt: EventID, sourceLocation: SourceLocation = #_sourceLocation) {
        Following.change(hub, user: user, seq: 1)
        let captured = Captured()
        #expect(
            hub.subscribe(
                StreamHubPendingEventTests.stream(captured), user: user, flags: nil, types: nil, lastEventID: nil, readAt: readAt,
                currentValues: [ByteKey("promo"): .int(0)], resetState: { .null }),
            sourceLocation: sourceLocation)
        Following.expectOnlyEvent(captured, startingWith: "id: 1\nevent: flag", sourceLocation: sourceLocation)
    }

    @Test func streamsClosedForManyUsers_rememberAtMostTheBound() {
        let hub = Self.hub(resumeUsers: 8)
        for user in 0..<40 {
            Self.openAndClose(hub, user: "u\(user)")
            #expect(hub.rememberedClosedStreams <= 8)
            #expect(hub.followedUsers <= 8)
        }
        #expect(hub.forgottenResumeUsers >= 32)
    }

    @Test func theUsersNearestToLapsing_areForgotten_andTheirResumeGetsReset() {
        let hub = Self.hub(resumeUsers: 8)
        for user in 0..<9 { Self.openAndClose(hub, user: "u\(user)") }
        Following.change(hub, user: "u0", seq: 1)
        Following.change(hub, user: "u8", seq: 2)
        // u0 closed first, so it was among the forgotten; u8 closed last, and its resume is exact.
        let (_, oldest) = Following.open(hub, user: "u0", after: EventID(seq: 0))
        Following.expectOnlyEvent(oldest, startingWith: "id: 2\nevent: reset")
        let (_, newest) = Following.open(hub, user: "u8", after: EventID(seq: 0))
        Following.expectOnlyEvent(newest, startingWith: "id: 2\nevent: flag")
    }

    /// `beginFollowing` leases a user before a stream's values are read; a `HEAD` of the stream route takes the
    /// lease and never opens a stream.
    @Test func leasesForStreamsThatNeverOpen_stayInsideTheBound() {
        let hub = Self.hub(resumeUsers: 8)
        for user in 0..<100 { _ = hub.beginFollowing("lease-\(user)") }
        #expect(hub.followedUsers <= 8)
        // The newest lease is kept: a stream opening right after it still gets what was published meanwhile.
        Self.expectChangeAfterLeaseHeard(hub, user: "opening", readAt: hub.beginFollowing("opening"))
    }

    /// A returning user's closed stream is the oldest thing remembered, but the lease their new stream takes before
    /// its values are read is the newest: ranked by closed streams alone, a round between the lease and the
    /// subscribe forgot them, and the new stream missed a change published meanwhile.
    @Test func aReturningUsersLease_keepsThemUntilTheirStreamOpens() {
        let hub = Self.hub(resumeUsers: 8)
        Self.openAndClose(hub, user: "returning")
        for user in 0..<7 { Self.openAndClose(hub, user: "u\(user)") }
        let readAt = hub.beginFollowing("returning")
        Self.openAndClose(hub, user: "u7")
        #expect(hub.forgottenResumeUsers > 0)
        Self.expectChangeAfterLeaseHeard(hub, user: "returning", readAt: readAt)
    }

    /// Three quarters of a bound of one rounded down to none: every round forgot the user it had just remembered.
    @Test func aBoundOfOne_keepsTheNewestUser() {
        let hub = Self.hub(resumeUsers: 1)
        Self.openAndClose(hub, user: "older")
        Self.openAndClose(hub, user: "newer")
        #expect(hub.forgottenResumeUsers == 1)
        Following.change(hub, user: "newer", seq: 1)
        let (_, resumed) = Following.open(hub, user: "newer", after: EventID(seq: 0))
        Following.expectOnlyEvent(resumed, startingWith: "id: 1\nevent: flag")
    }

    /// The stream cap bounds them already, and a user with an open stream is followed: a closed stream of theirs
    /// forgotten meanwhile would leave its resume counted as exact with its version no longer evaluated.
    @Test func usersWithAnOpenStream_areNeverForgotten() {
        let hub = Self.hub(resumeUsers: 4)
        Self.openAndClose(hub, user: "open", appVersion: "1.0")
        let (kept, _) = Following.open(hub, user: "open")
        // "open" closed its 1.0 stream first of all: nearest to lapsing, yet kept while its other stream is open.
        for user in 0..<30 { Self.openAndClose(hub, user: "u\(user)") }
        #expect(hub.forgottenResumeUsers > 0)
        #expect(hub.appVersions(hearing: "open").contains("1.0"))
        Following.change(hub, user: "open", seq: 1)
        kept.markClosed(.peerClosed)
        #expect(hub.streamCount == 0)
        let (_, resumed) = Following.open(hub, user: "open", after: EventID(seq: 0))
        Following.expectOnlyEvent(resumed, startingWith: "id: 1\nevent: flag")
    }

    /// A global stream follows every user, so it would otherwise vouch for a forgotten user's resume, whose closed
    /// stream's version is no longer evaluated.
    @Test func forgettingWhileAGlobalStreamIsOpen_resetsResumesFromIdsAlreadySent() {
        let hub = Self.hub(resumeUsers: 4)
        let (_, _) = Following.open(hub, user: nil)
        Following.change(hub, user: "x", seq: 1)
        for user in 0..<6 { Self.openAndClose(hub, user: "u\(user)") }
        #expect(hub.forgottenResumeUsers > 0)
        Following.change(hub, user: "u0", seq: 2)
        let (_, forgotten) = Following.open(hub, user: "u0", after: EventID(seq: 1))
        Following.expectOnlyEvent(forgotten, startingWith: "id: 2\nevent: reset")
        // Ids sent after the forgetting resume exactly again.
        Following.change(hub, user: "u0", seq: 3)
        let (_, later) = Following.open(hub, user: nil, after: EventID(seq: 2))
        Following.expectOnlyEvent(later, startingWith: "id: 3\nevent: flag")
    }
}
