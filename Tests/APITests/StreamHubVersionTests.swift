import Engine
import Foundation
import HTTP
import Rules
import Synchronization
import Testing

@testable import API
@testable import HTTPServer

/// Which app versions a write is evaluated for: counted per user as streams open and close, so a write to a user
/// with ten thousand streams does not visit each of them to ask (every subscribe did too, which made opening
/// ten thousand streams on one user quadratic).
@Suite struct StreamHubVersionTests {
    static func stream() -> EventStream { EventStream(write: { _, _ in }, finish: {}) }

    /// Streams with no flag values seen are not remembered once closed, so a closed one leaves no version behind.
    static func subscribe(_ hub: StreamHub, user: String?, version: String?) -> EventStream {
        let stream = stream()
        #expect(
            hub.subscribe(
                stream, user: user, flags: nil, types: nil, appVersion: version, lastEventID: nil, currentValues: [:], resetState: { .null }))
        return stream
    }

    static func versions(_ hub: StreamHub, _ user: String) -> Set<String?> { Set(hub.appVersions(hearing: user)) }

    @Test func versions_areThoseOfTheUsersOpenStreams_andTheGlobalOnes_untilTheLastOfEachCloses() {
        let hub = StreamHub(startSeq: 0)
        let firstOne = Self.subscribe(hub, user: "u", version: "1.0")
        let secondOne = Self.subscribe(hub, user: "u", version: "1.0")
        let two = Self.subscribe(hub, user: "u", version: "2.0")
        let unversioned = Self.subscribe(hub, user: "u", version: nil)
        let global = Self.subscribe(hub, user: nil, version: "3.0")
        #expect(Self.versions(hub, "u") == ["1.0", "2.0", nil, "3.0"])
        #expect(Self.versions(hub, "someone else") == ["3.0"])

        firstOne.markClosed(.peerClosed)
        #expect(Self.versions(hub, "u") == ["1.0", "2.0", nil, "3.0"])
        secondOne.markClosed(.peerClosed)
        #expect(Self.versions(hub, "u") == ["2.0", nil, "3.0"])
        two.markClosed(.slowConsumer)
        unversioned.markClosed(.serverClosed)
        #expect(Self.versions(hub, "u") == ["3.0"])
        global.markClosed(.peerClosed)
        #expect(hub.streamCount == 0)
        // The last global stream of 3.0 closed: every user's writes stay evaluated for 3.0 for the resume window,
        // so the stream that comes back misses none of its version's changes (`StreamHubVersionExactnessTests`).
        #expect(Self.versions(hub, "u") == ["3.0"])
    }

    /// A global stream that hears no flag events leaves no version behind once closed.
    @Test func aClosedGlobalStreamWithoutFlagEvents_leavesNoVersionBehind() {
        let hub = StreamHub(startSeq: 0)
        let stream = Self.stream()
        #expect(
            hub.subscribe(
                stream, user: nil, flags: nil, types: ["trigger"], appVersion: "3.0", lastEventID: nil, currentValues: [:],
                resetState: { .null }))
        stream.markClosed(.peerClosed)
        #expect(hub.streamCount == 0)
        #expect(Self.versions(hub, "u").isEmpty)
    }

    /// Users are told apart by their bytes: NFC and NFD `café` are two users, each with its own versions.
    @Test func versions_ofOneUser_neverReachAnotherWhoseNameIsCanonicallyEqual() {
        let hub = StreamHub(startSeq: 0)
        let composed = "caf\u{E9}"
        let decomposed = "cafe\u{301}"
        _ = Self.subscribe(hub, user: composed, version: "1.0")
        let other = Self.subscribe(hub, user: decomposed, version: "2.0")
        #expect(Self.versions(hub, composed) == ["1.0"])
        #expect(Self.versions(hub, decomposed) == ["2.0"])
        other.markClosed(.peerClosed)
        #expect(Self.versions(hub, decomposed).isEmpty)
        #expect(Self.versions(hub, composed) == ["1.0"])
    }

    /// A closed stream that saw flag values stays in the resume window, and so does its version: a write made
    /// meanwhile is still evaluated for it, for the client that reconnects with `Last-Event-ID`.
    @Test func aClosedStreamInsideTheResumeWindow_keepsItsVersionHeard() {
        let hub = StreamHub(startSeq: 0)
        let stream = Self.stream()
        #expect(
            hub.subscribe(
                stream, user: "u", flags: nil, types: nil, appVersion: "1.0", lastEventID: nil,
                currentValues: [ByteKey("promo"): .bool(true)], resetState: { .null }))
        stream.markClosed(.peerClosed)
        #expect(hub.streamCount == 0)
        #expect(Self.versions(hub, "u") == ["1.0"])
    }

    /// A write asks its three questions at once (`interest(in:)`); the answers are those of the three questions
    /// asked one by one, for a user with streams, a user heard only by a global stream, and one with a context
    /// stream.
    @Test func interest_answersAsTheThreeQuestionsAskedApart() {
        let hub = StreamHub(startSeq: 0)
        _ = Self.subscribe(hub, user: "u", version: "1.0")
        _ = Self.subscribe(hub, user: nil, version: "3.0")
        let context = Self.stream()
        #expect(
            hub.subscribe(
                context, user: "c", flags: nil, types: nil, includeContext: true, appVersion: nil, lastEventID: nil, currentValues: [:],
                resetState: { .null }))
        for user in ["u", "c", "nobody"] {
            let interest = hub.interest(in: user)
            #expect(Set(interest.versions) == Set(hub.appVersions(hearing: user)), "\(user)")
            #expect(interest.versions.count == hub.appVersions(hearing: user).count, "\(user)")
            #expect(interest.wantsContext == hub.wantsContext(for: user), "\(user)")
            #expect(interest.hasSubscribers == hub.hasSubscribers(for: user), "\(user)")
        }
        #expect(hub.interest(in: "u").hasSubscribers)
        #expect(!hub.interest(in: "nobody").hasSubscribers)
        #expect(hub.interest(in: "c").wantsContext)
        #expect(!hub.interest(in: "u").wantsContext)
        #expect(Set(hub.interest(in: "nobody").versions) == ["3.0"])
    }

    /// A hub with no stream open or remembered answers "no interest" without looking the user up; a closed stream
    /// still inside its resume window is remembered, so its user is still heard until the window is over.
    @Test func interest_ofAHubWithNoStream_isNone_butAClosedStreamInItsWindowStillCounts() {
        var options = StreamHub.Options()
        options.retainFor = .milliseconds(200)
        let hub = StreamHub(options: options, startSeq: 0)
        let none = ListenerInterest(versions: [], wantsContext: false, hasSubscribers: false)
        #expect(hub.interest(in: "u") == none)
        let stream = Self.stream()
        #expect(
            hub.subscribe(
                stream, user: "u", flags: nil, types: nil, appVersion: "1.0", lastEventID: nil, currentValues: ["f": .bool(true)],
                resetState: { .null }))
        stream.markClosed(.peerClosed)
        let deadline = ContinuousClock.now + .seconds(3)
        while hub.streamCount > 0, ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.01) }
        let inside = hub.interest(in: "u")
        #expect(inside.hasSubscribers && inside.hasSubscribers == hub.hasSubscribers(for: "u"), "inside the resume window")
        #expect(inside.versions == ["1.0"])
        #expect(hub.interest(in: "v") == ListenerInterest(versions: [], wantsContext: false, hasSubscribers: false))
        Thread.sleep(forTimeInterval: 0.3)
        #expect(!hub.interest(in: "u").hasSubscribers, "the window is over")
    }

    /// A global stream with context, once closed, is still owed context events for the resume window (every user's
    /// writes), and then no longer: the window is forgotten, not kept as a past instant.
    @Test func globalContextStream_isOwedContextForItsResumeWindow_thenNoLonger() {
        var options = StreamHub.Options()
        options.retainFor = .milliseconds(200)
        let hub = StreamHub(options: options, startSeq: 0)
        let global = Self.stream()
        #expect(
            hub.subscribe(
                global, user: nil, flags: nil, types: nil, includeContext: true, appVersion: nil, lastEventID: nil, currentValues: [:],
                resetState: { .null }))
        #expect(hub.wantsContext(for: "anyone"))
        global.markClosed(.peerClosed)
        let deadline = ContinuousClock.now + .seconds(3)
        while hub.streamCount > 0, ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.01) }
        #expect(hub.streamCount == 0)
        #expect(hub.wantsContext(for: "anyone"), "inside the resume window")
        #expect(hub.interest(in: "someone else").wantsContext)
        Thread.sleep(forTimeInterval: 0.3)
        #expect(!hub.wantsContext(for: "anyone"), "the window is over")
        #expect(!hub.interest(in: "anyone").wantsContext)
    }
}
