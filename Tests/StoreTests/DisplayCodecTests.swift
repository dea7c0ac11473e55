import Foundation
import Rules
import Testing

@testable import Store

/// Display events in the log (action tag 23) and display state in snapshots (trailing section tag 2).
@Suite struct DisplayCodecTests {
    static let far = Instant(milliseconds: .max)

    @Test(arguments: [
        Action.recordDisplay(flag: "tip", event: .shown, at: t0, maxCount: 2, invalidates: false),
        .recordDisplay(flag: "tip", event: .dismissed, at: Instant(milliseconds: .min), maxCount: nil, invalidates: true),
        .recordDisplay(flag: "caf\u{E9}", event: .actionPerformed, at: far, maxCount: .max, invalidates: true),
        .recordDisplay(flag: "t", event: .shown, at: t0, maxCount: .min, invalidates: false)
    ])
    func displayAction_roundTripsThroughTheLog(action: Action) throws {
        let mutation = Mutation(user: "u", now: t0, actions: [action, .increment(counter: "k", by: 1)])
        let bytes = MutationCodec.encode(mutation)
        #expect(bytes[bytes.firstIndex(of: 23) ?? 0] == 23)
        #expect(try MutationCodec.decode(bytes) == mutation)
    }

    @Test func displayAction_withABadEventOrFlagByte_isMalformed() throws {
        let bytes = MutationCodec.encode(
            Mutation(user: "u", now: t0, actions: [.recordDisplay(flag: "f", event: .shown, at: t0, maxCount: nil, invalidates: false)]))
        // user "u" (2 bytes), now, count 1, tag 23, flag "f" (2 bytes), then the event byte.
        let tag = try #require(bytes.lastIndex(of: 23))
        for (offset, value) in [(3, UInt8(3)), (3, 255)] {
            var broken = bytes
            broken[tag + offset] = value
            #expect(throws: BinaryReader.Failure.self) { try MutationCodec.decode(broken) }
        }
    }

    static func record(_ context: UserContext) -> [UInt8] {
        var writer = BinaryWriter()
        ContextCodec.encode(user: "u", context, into: &writer)
        return writer.bytes
    }

    static func decode(_ bytes: [UInt8]) throws -> UserContext {
        var reader = BinaryReader(bytes)
        let (_, context) = try ContextCodec.decode(&reader)
        guard reader.isAtEnd else { throw BinaryReader.Failure.malformed }
        return context
    }

    @Test func displayState_roundTripsThroughASnapshotRecord() throws {
        var context = UserContext()
        context.counters["k"] = 1
        context.display["a"] = DisplayState(
            shownCount: 2, firstShown: t0, lastShown: Self.far, invalidated: .init(reason: .displayCountExceeded, at: t0))
        context.display["b"] = DisplayState(shownCount: .max)
        context.display["c"] = DisplayState(invalidated: .init(reason: .actionPerformed, at: Instant(milliseconds: .min)))
        context.display["d"] = DisplayState(invalidated: .init(reason: .dismissed, at: t0))
        #expect(try Self.decode(Self.record(context)) == context)
    }

    /// A record written before display state existed ends after the trigger fires, and still decodes; a context
    /// with no display state writes no section, so its record is byte for byte the pre-v2 one.
    @Test func preV2Record_withNoTrailingSection_decodes() throws {
        var context = UserContext()
        context.triggerFires["t"] = t0
        context.segments.insert("vip")
        let plain = Self.record(context)
        #expect(try Self.decode(plain) == context)
        var withDisplay = context
        withDisplay.display["tip"] = DisplayState(shownCount: 1, firstShown: t0, lastShown: t0)
        let extended = Self.record(withDisplay)
        #expect(Array(extended.prefix(plain.count)) == plain)
        #expect(extended[plain.count] == 2)
    }

    @Test(arguments: [
        ("unknown tag", [UInt8(3)]), ("tag 0", [0]), ("empty section", [2, 0]), ("section twice", [2, 1, 1, 0x61, 0, 0, 0, 0, 2]),
        ("bad presence byte", [2, 1, 1, 0x61, 0, 7]), ("bad reason", [2, 1, 1, 0x61, 0, 0, 0, 9, 0]),
        ("negative count", [2, 1, 1, 0x61, 1, 0, 0, 0]), ("cut short", [2, 1, 1])
    ])
    func malformedTrailingSection_isRefused(name: String, tail: [UInt8]) {
        let bytes = Self.record(UserContext()) + tail
        #expect(throws: BinaryReader.Failure.self, "\(name)") { try Self.decode(bytes) }
    }

    @Test func reducer_recordsShowsAndInvalidation() throws {
        let shown = Action.recordDisplay(flag: "tip", event: .shown, at: t0, maxCount: 2, invalidates: false)
        var state: UserContext? = nil
        _ = try Reducer.applyInPlace(mutation("u", shown, shown), to: &state)
        let display = try #require(state?.display["tip"])
        #expect(display.shownCount == 2)
        #expect(display.invalidated?.reason == .displayCountExceeded)
        _ = try Reducer.applyInPlace(mutation("u", .erase), to: &state)
        #expect(state == nil)
        #expect(throws: ReducerError.emptyKey(index: 0)) {
            var fresh: UserContext? = nil
            _ = try Reducer.applyInPlace(
                mutation("u", .recordDisplay(flag: "", event: .shown, at: t0, maxCount: nil, invalidates: false)), to: &fresh)
        }
    }
}
