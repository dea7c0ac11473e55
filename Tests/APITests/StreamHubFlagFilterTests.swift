import Engine
import HTTP
import Rules
import Synchronization
import Testing

@testable import API
@testable import HTTPServer

/// A stream's `?flags=` filter, with the hub alone: a filter of one flag is compared by its bytes, a larger one
/// looked up in its set, and both must let through exactly the flags they name.
@Suite struct StreamHubFlagFilterTests {
    final class Captured: Sendable {
        let bytes = Mutex<[UInt8]>([])

        /// Searched by bytes: `String.contains` matches canonically equivalent spellings, which are two flags here.
        func contains(_ text: String) -> Bool {
            let needle = Array(text.utf8)
            return bytes.withLock { haystack in
                haystack.count >= needle.count
                    && (0...(haystack.count - needle.count)).contains { haystack[$0..<($0 + needle.count)].elementsEqual(needle) }
            }
        }
    }

    static let keys = ["promo", "caf\u{E9}", "cafe\u{301}", "promo2", "prom"]

    /// Which of `keys` a stream with `filter` hears when each changes once.
    static func heard(filter: Set<ByteKey>?) -> [String] {
        let hub = StreamHub(startSeq: 0)
        let captured = Captured()
        let stream = EventStream(write: { frame, _ in captured.bytes.withLock { $0 += frame.raw } }, finish: {})
        #expect(hub.subscribe(stream, user: "u1", flags: filter, types: nil, lastEventID: nil, currentValues: [:], resetState: { .null }))
        for (index, key) in keys.enumerated() {
            let evaluation = Evaluation(key: key, value: .int(index + 1), reason: .targetingMatch, matched: true)
            hub.publishFlag(user: "u1", key: key, evaluation: evaluation, previous: nil, seq: UInt64(index + 1), appVersion: nil)
        }
        return keys.filter { captured.contains(#""key":"\#($0)""#) }
    }

    @Test func aOneFlagFilter_letsThatFlagAlone_byItsBytes() {
        #expect(Self.heard(filter: ["promo"]) == ["promo"])
        // Canonically equivalent spellings are different flags: keys compare by their bytes.
        #expect(Self.heard(filter: ["caf\u{E9}"]) == ["caf\u{E9}"])
        #expect(Self.heard(filter: ["cafe\u{301}"]) == ["cafe\u{301}"])
        #expect(Self.heard(filter: ["nothing"]) == [])
    }

    @Test func aLargerFilter_letsEachFlagItNames_andNoFilterLetsAll() {
        #expect(Self.heard(filter: ["promo", "prom"]) == ["promo", "prom"])
        #expect(Self.heard(filter: ["caf\u{E9}", "promo2", "x"]) == ["caf\u{E9}", "promo2"])
        #expect(Self.heard(filter: []) == [])
        #expect(Self.heard(filter: nil) == Self.keys)
    }
}

/// `Subscriber.updateLastSeen` answers as `Dictionary.updateValue` does, whatever the map holds and whatever the
/// stream's filter (a one-flag filter's flag is kept in a field of its own).
@Suite struct SubscriberLastSeenTests {
    static func subscriber(_ lastSeen: [ByteKey: JSONValue], flags: Set<ByteKey>?) -> StreamHub.Subscriber {
        StreamHub.Subscriber(
            stream: EventStream(write: { _, _ in }, finish: {}), user: "u1", flags: flags, types: nil, includeContext: false,
            refetchOnly: false, appVersion: nil, lastSeen: lastSeen)
    }

    static let starts: [[ByteKey: JSONValue]] = [
        [:], ["promo": .bool(true)], ["caf\u{E9}": .int(1)], ["promo": .int(1), "other": .null],
        ["a": .int(1), "b": .int(2), "promo": .string("x"), "cafe\u{301}": .bool(false)]
    ]
    static let filters: [Set<ByteKey>?] = [nil, ["promo"], ["caf\u{E9}"], ["promo", "other"]]

    @Test(arguments: starts, filters)
    func updateLastSeen_answersAsUpdateValue(start: [ByteKey: JSONValue], filter: Set<ByteKey>?) {
        for key in ["promo", "caf\u{E9}", "cafe\u{301}", "other"] as [ByteKey] {
            for value in [JSONValue.int(7), .bool(true), .null] {
                let subscriber = Self.subscriber(start, flags: filter)
                var expected = start
                let expectedSeen = expected.updateValue(value, forKey: key)
                #expect(subscriber.updateLastSeen(value, forKey: key) == expectedSeen)
                #expect(subscriber.lastSeen == expected)
                // Twice: the second finds the first's value.
                #expect(subscriber.updateLastSeen(.int(8), forKey: key) == value)
            }
        }
    }

    @Test(arguments: starts, filters)
    func lastSeen_readsBackWhatWasSet(start: [ByteKey: JSONValue], filter: Set<ByteKey>?) {
        let subscriber = Self.subscriber([:], flags: filter)
        subscriber.lastSeen = start
        #expect(subscriber.lastSeen == start)
        subscriber.lastSeen["promo"] = nil
        var expected = start
        expected["promo"] = nil
        #expect(subscriber.lastSeen == expected)
    }
}
