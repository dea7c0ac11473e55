import Engine
import HTTP
import Rules
import Synchronization
import Testing

@testable import API
@testable import HTTPServer

/// The resume window's memory, with the hub alone (no streams, no server).
@Suite struct StreamHubRetentionTests {
    /// Events leaving the window used to keep their bytes until the next bulk compaction, so the hub held up to
    /// twice `retainEvents` / `retainBytes` (found by the soak: 11.5 MB for a 10 000-event window of ~575 B).
    @Test(arguments: [1_500, 2_500, 3_000])
    func eventsLeavingTheWindow_releaseTheirBytesAtOnce(published: Int) {
        var options = StreamHub.Options()
        options.retainEvents = 1_000
        let hub = StreamHub(options: options, startSeq: 0)
        let padding = String(repeating: "x", count: 500)
        var eventBytes = 0
        for index in 0..<published {
            hub.publish(type: "trigger", user: "u\(index % 7)", data: ["n": .int(index), "pad": .string(padding)], seq: nil)
            if index == 0 { eventBytes = hub.heldEventBytes }
        }
        // Every event encodes to about the same size (its index adds up to 3 digits; an allocation rounds up to 16
        // bytes): the window holds 1 000 of them, never more, and never buffers grown to twice their event.
        #expect(hub.heldEventBytes <= 1_000 * (eventBytes + 24))
        #expect(hub.heldEventBytes >= 1_000 * (eventBytes - 8))
    }
}

/// Flag changes are encoded only when a stream takes them: a resume must replay exactly the bytes a live stream
/// would have had, and the byte bound must count them as if they had been encoded.
@Suite struct StreamHubPendingEventTests {
    final class Captured: Sendable {
        let bytes = Mutex<[UInt8]>([])
        var text: String { String(decoding: bytes.withLock { $0 }, as: UTF8.self) }
    }

    static func stream(_ captured: Captured) -> EventStream {
        EventStream(write: { frame, _ in captured.bytes.withLock { $0 += frame.raw } }, finish: {})
    }

    /// A global stream that listened from the start and closed: every user's events are kept for the resume window
    /// from then on, as they are for the client that comes back (`StreamHub+Following`).
    static func followEveryoneFromTheStart(_ hub: StreamHub) {
        let earlier = EventStream(write: { _, _ in }, finish: {})
        #expect(hub.subscribe(earlier, user: nil, flags: nil, types: nil, lastEventID: nil, currentValues: [:], resetState: { .null }))
        earlier.markClosed(.peerClosed)
        #expect(hub.streamCount == 0)
    }

    static func change(_ index: Int) -> (user: String, key: String, evaluation: Evaluation) {
        let key = ["promo", "caf\u{E9}", "tab\t"][index % 3]
        return ("u\(index % 2)", key, Evaluation(key: key, value: .int(index), reason: .targetingMatch, matched: true))
    }

    @Test func resume_replaysNeverEncodedChanges_withTheBytesALiveStreamGot() {
        let hub = StreamHub(startSeq: 0)
        Self.followEveryoneFromTheStart(hub)
        let live = Captured()
        // One live stream for u0 (all its flags): u0's changes get encoded for it, u1's are never encoded.
        #expect(hub.subscribe(Self.stream(live), user: "u0", flags: nil, types: nil, lastEventID: nil, currentValues: [:], resetState: { .null }))
        var expected: [UInt8] = []
        var scratch: [UInt8] = []
        for index in 0..<40 {
            let (user, key, evaluation) = Self.change(index)
            hub.publishFlag(user: user, key: key, evaluation: evaluation, previous: .int(index - 1), seq: UInt64(index + 1), appVersion: nil)
            let id = EventID(seq: UInt64(index + 1))
            let event = DomainEvent.flagChanged(
                user: user, key: key, evaluation: evaluation, previous: .int(index - 1), seq: UInt64(index + 1), appVersion: nil)
            expected += StreamHub.eventBytes(id: id, event, scratch: &scratch)
        }
        // A global stream resuming from before the first change replays all forty, encoded or not, in order.
        let resumed = Captured()
        #expect(
            hub.subscribe(
                Self.stream(resumed), user: nil, flags: nil, types: nil, lastEventID: EventID(seq: 0), currentValues: [:],
                resetState: { .null }))
        let prelude = SSEEncoder.encode(SSEEvent(retry: 2000, comment: "connected"))
        #expect(resumed.bytes.withLock { $0 } == prelude + expected)
        #expect(live.text.contains("\"user\":\"u0\"") && !live.text.contains("\"user\":\"u1\""))
    }

    /// Trigger firings are retained unencoded too: a live stream and a resume get the bytes the JSON tree made
    /// before, a stream that only refetches gets none, and a user's firing reaches no other user's stream.
    @Test func triggerFirings_liveAndResumed_getTheBytesOfTheJSONTree() {
        let hub = StreamHub(startSeq: 0)
        Self.followEveryoneFromTheStart(hub)
        let live = Captured()
        let refetching = Captured()
        #expect(hub.subscribe(Self.stream(live), user: "u0", flags: nil, types: nil, lastEventID: nil, currentValues: [:], resetState: { .null }))
        #expect(
            hub.subscribe(
                Self.stream(refetching), user: "u0", flags: nil, types: nil, refetchOnly: true, lastEventID: nil, currentValues: [:],
                resetState: { .null }))
        let connected = SSEEncoder.encode(SSEEvent(retry: 2000, comment: "connected"))
        var expected: [UInt8] = []
        var expectedLive: [UInt8] = connected
        for index in 0..<20 {
            let user = "u\(index % 2)"
            let event = DomainEvent.triggerFired(
                user: user, trigger: ["welcome", "caf\u{E9}\"tip"][index % 2], at: Instant(milliseconds: 1_773_144_000_000 + Int64(index) * 1_001),
                seq: UInt64(index + 1))
            hub.publish(event)
            let bytes = SSEEncoder.encode(
                SSEEvent(
                    id: EventID(seq: UInt64(index + 1)).description, event: "trigger",
                    data: JSONWriter.string(event.streamData(seq: UInt64(index + 1)))))
            expected += bytes
            if user == "u0" { expectedLive += bytes }
        }
        #expect(live.bytes.withLock { $0 } == expectedLive)
        #expect(refetching.bytes.withLock { $0 } == connected)
        let resumed = Captured()
        #expect(
            hub.subscribe(
                Self.stream(resumed), user: nil, flags: nil, types: nil, lastEventID: EventID(seq: 0), currentValues: [:],
                resetState: { .null }))
        #expect(resumed.bytes.withLock { $0 } == connected + expected)
    }

    /// Writes on two loops may publish out of their order: a firing published after a later write's change gets an
    /// id under that later seq, and its data still names its own write, live and on a resume, as before it was
    /// retained unencoded.
    @Test func triggerFiring_publishedAfterALaterWrite_namesItsOwnWrite() {
        let hub = StreamHub(startSeq: 0)
        Self.followEveryoneFromTheStart(hub)
        let live = Captured()
        #expect(
            hub.subscribe(Self.stream(live), user: "u0", flags: nil, types: ["trigger"], lastEventID: nil, currentValues: [:], resetState: { .null }))
        let (user, key, evaluation) = Self.change(0)
        hub.publishFlag(user: user, key: key, evaluation: evaluation, previous: nil, seq: 9, appVersion: nil)
        let firing = DomainEvent.triggerFired(user: "u0", trigger: "welcome", at: Instant(milliseconds: 1_773_144_000_250), seq: 7)
        hub.publish(firing)
        let bytes = SSEEncoder.encode(
            SSEEvent(id: EventID(seq: 9, index: 1).description, event: "trigger", data: JSONWriter.string(firing.streamData(seq: 7))))
        #expect(String(decoding: bytes, as: UTF8.self).contains(#""seq":7}"#))
        let connected = SSEEncoder.encode(SSEEvent(retry: 2000, comment: "connected"))
        #expect(live.bytes.withLock { $0 } == connected + bytes)
        let resumed = Captured()
        #expect(
            hub.subscribe(
                Self.stream(resumed), user: nil, flags: nil, types: ["trigger"], lastEventID: EventID(seq: 0), currentValues: [:],
                resetState: { .null }))
        #expect(resumed.bytes.withLock { $0 } == connected + bytes)
    }

    @Test(arguments: [300, 1_000, 4_096])
    func byteBound_countsPendingChangesAtTheirEncodedSize(retainBytes: Int) {
        var options = StreamHub.Options()
        options.retainBytes = retainBytes
        let hub = StreamHub(options: options, startSeq: 0)
        Self.followEveryoneFromTheStart(hub)
        var sizes: [Int] = []
        var scratch: [UInt8] = []
        for index in 0..<100 {
            let (user, key, evaluation) = Self.change(index)
            hub.publishFlag(user: user, key: key, evaluation: evaluation, previous: nil, seq: UInt64(index + 1), appVersion: nil)
            let event = DomainEvent.flagChanged(user: user, key: key, evaluation: evaluation, previous: nil, seq: UInt64(index + 1), appVersion: nil)
            sizes.append(StreamHub.eventBytes(id: EventID(seq: UInt64(index + 1)), event, scratch: &scratch).count)
        }
        // The newest events whose encoded sizes fit the bound are held, and nothing is encoded yet.
        var fitting = 0
        var total = 0
        for size in sizes.reversed() {
            guard total + size <= retainBytes else { break }
            total += size
            fitting += 1
        }
        #expect(hub.heldEventBytes == total)
        let resumed = Captured()
        #expect(
            hub.subscribe(
                Self.stream(resumed), user: nil, flags: nil, types: nil, lastEventID: EventID(seq: UInt64(100 - fitting)),
                currentValues: [:], resetState: { .null }))
        #expect(resumed.text.components(separatedBy: "event: flag").count - 1 == fitting)
    }
}
