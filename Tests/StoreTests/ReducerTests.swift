import Foundation
import Rules
import Store
import TestRandom
import Testing

@Suite struct ReducerTests {
    func apply(_ actions: Action..., to state: UserContext? = nil, policy: HistoryPolicy = HistoryPolicy()) throws -> UserContext? {
        try Reducer.apply(Mutation(user: "u", now: t0, actions: actions), to: state, policy: policy).state
    }

    @Test func firstWrite_createsTheUserLaunchedNow() throws {
        let result = try Reducer.apply(mutation("u", .increment(counter: "k", by: 1)), to: nil)
        #expect(result.state?.launchedAt == t0)
        #expect(result.effects.first == .created)
    }

    @Test func counters_incrementNoClampDecrementFloorsAtZero() throws {
        #expect(try apply(.increment(counter: "k", by: 2), .increment(counter: "k", by: -5))?.counters["k"] == -3)
        #expect(try apply(.increment(counter: "k", by: 2), .decrement(counter: "k", by: 5))?.counters["k"] == 0)
        #expect(try apply(.decrement(counter: "missing", by: 1))?.counters["missing"] == 0)
        #expect(try apply(.setCounter(counter: "k", value: 7), .resetCounter(counter: "k"))?.counters["k"] == 0)
    }

    @Test func toggleFlag_readsMissingAsFalse() throws {
        #expect(try apply(.toggleFlag(flag: "f"))?.flags["f"] == true)
        #expect(try apply(.toggleFlag(flag: "f"), .toggleFlag(flag: "f"))?.flags["f"] == false)
        #expect(try apply(.setFlag(flag: "f", value: true))?.flags["f"] == true)
    }

    @Test func eventsAttributesSegmentsZoneLaunch() throws {
        let state = try apply(
            .recordEvent(event: "e", at: t0 - 5), .setAttribute(key: "plan", value: ["seats": 5]), .addSegment("vip"),
            .setTimeZone("Europe/Paris"), .setLaunchedAt(t0 - 100))
        #expect(state?.events["e"] == t0 - 5)
        #expect(state?.attributes["plan"] == ["seats": 5])
        #expect(state?.segments == ["vip"])
        #expect(state?.timeZone == "Europe/Paris")
        #expect(state?.launchedAt == t0 - 100)
        let removed = try apply(.removeEvent(event: "e"), .removeAttribute(key: "plan"), .removeSegment("vip"), to: state)
        #expect(removed?.events.isEmpty == true)
        #expect(removed?.attributes.isEmpty == true)
        #expect(removed?.segments.isEmpty == true)
    }

    @Test(arguments: Action.ClearScope.allCases)
    func clear_removesItsScope(scope: Action.ClearScope) throws {
        let full = try apply(
            .increment(counter: "c", by: 1), .recordEvent(event: "e", at: t0), .setFlag(flag: "f", value: true),
            .setAttribute(key: "a", value: 1), .addSegment("s"))
        let cleared = try #require(try apply(.clear(scope), to: full))
        #expect(cleared.counters.isEmpty == (scope == .counters || scope == .all))
        #expect(cleared.events.isEmpty == (scope == .events || scope == .all))
        #expect(cleared.flags.isEmpty == (scope == .flags || scope == .all))
        #expect(cleared.attributes.isEmpty == (scope == .attributes || scope == .all))
        #expect(cleared.segments.isEmpty == (scope == .segments || scope == .all))
    }

    @Test func donate_updatesSummaryEventAndHistory() throws {
        let state = try apply(.donate(event: "appStarted", at: t0 - 10, appVersion: "1.0"), .donate(event: "appStarted", at: t0, appVersion: "1.2"))
        let summary = try #require(state?.donations["appStarted"])
        #expect(summary.count == 2)
        #expect(summary.first == .init(at: t0 - 10, appVersion: "1.0"))
        #expect(summary.last == .init(at: t0, appVersion: "1.2"))
        #expect(summary.recent == [t0 - 10, t0])
        #expect(state?.events["appStarted"] == t0)
    }

    @Test func donationHistory_isBoundedByCountAndAge() throws {
        let policy = HistoryPolicy(maxEntries: 3, maxAge: 1000)
        var state: UserContext?
        for offset in [5000, 900, 800, 700, 600] as [Int64] {
            state = try apply(.donate(event: "e", at: t0 - offset, appVersion: nil), to: state, policy: policy)
        }
        #expect(state?.donations["e"]?.recent == [t0 - 800, t0 - 700, t0 - 600])
        #expect(state?.donations["e"]?.count == 5)
    }

    @Test func resetDonations_keepsTriggerThrottles() throws {
        let state = try apply(.donate(event: "e", at: t0, appVersion: nil), .recordTriggerFire(trigger: "t", at: t0), .resetDonations(event: "e"))
        #expect(state?.donations["e"] == nil)
        #expect(state?.triggerFires["t"] == t0)
    }

    @Test func batch_isAllOrNothing() {
        let before = UserContext()
        #expect(throws: ReducerError.unknownTimeZone(index: 1, zone: "Mars/Base")) {
            try Reducer.apply(mutation("u", .increment(counter: "k", by: 1), .setTimeZone("Mars/Base")), to: before)
        }
        #expect(throws: ReducerError.counterOverflow(index: 1, counter: "k")) {
            try Reducer.apply(mutation("u", .setCounter(counter: "k", value: .max), .increment(counter: "k", by: 1)), to: before)
        }
        #expect(throws: ReducerError.emptyKey(index: 0)) { try Reducer.apply(mutation("u", .increment(counter: "", by: 1)), to: before) }
    }

    // MARK: Numbers: every step on a client number is checked; a batch that would overflow is refused whole.

    @Test func decrement_byIntMax_afterNegative_refusesWithOverflow() {
        #expect(throws: ReducerError.counterOverflow(index: 1, counter: "k")) {
            try Reducer.apply(mutation("u", .increment(counter: "k", by: -2), .decrement(counter: "k", by: .max)), to: UserContext())
        }
    }

    @Test func decrement_afterSetCounterIntMin_refusesWithOverflow() {
        #expect(throws: ReducerError.counterOverflow(index: 1, counter: "k")) {
            try Reducer.apply(mutation("u", .setCounter(counter: "k", value: .min), .decrement(counter: "k", by: 1)), to: UserContext())
        }
    }

    @Test(arguments: [(Int.max, 1), (Int.max - 1, 2), (Int.min, -1), (-2, Int.min)])
    func increment_pastTheIntRange_refusesWithOverflow(start: Int, by: Int) {
        #expect(throws: ReducerError.counterOverflow(index: 1, counter: "k")) {
            try Reducer.apply(mutation("u", .setCounter(counter: "k", value: start), .increment(counter: "k", by: by)), to: UserContext())
        }
    }

    @Test func overflow_refusesTheWholeBatch_andNamesTheAmount() throws {
        let before = try apply(.setCounter(counter: "k", value: 5))
        #expect(throws: ReducerError.counterOverflow(index: 2, counter: "k")) {
            try Reducer.apply(
                mutation(
                    "u", .increment(counter: "other", by: 1), .setCounter(counter: "k", value: .min),
                    .decrement(counter: "k", by: 1)), to: before)
        }
        #expect(ReducerError.counterOverflow(index: 2, counter: "k").code == "overflow")
        #expect(ReducerError.counterOverflow(index: 2, counter: "k").field == "ops[2].by")
    }

    @Test func decrement_withinRange_stillFloorsAtZero() throws {
        #expect(try apply(.setCounter(counter: "k", value: .max), .decrement(counter: "k", by: .max))?.counters["k"] == 0)
        #expect(try apply(.setCounter(counter: "k", value: 3), .decrement(counter: "k", by: .max))?.counters["k"] == 0)
    }

    @Test func donate_countAtIntMax_saturates() throws {
        var state = UserContext()
        state.donations["e"] = DonationSummary(count: .max)
        #expect(try apply(.donate(event: "e", at: t0, appVersion: nil), to: state)?.donations["e"]?.count == .max)
    }

    @Test func donationHistory_withExtremeInstants_prunesWithoutTrapping() throws {
        let policy = HistoryPolicy(maxEntries: 5, maxAge: .max)
        var state: UserContext?
        for at in [Int64.min, Int64.max, 0] {
            state = try Reducer.apply(
                Mutation(user: "u", now: Instant(milliseconds: .min), actions: [.donate(event: "e", at: Instant(milliseconds: at), appVersion: nil)]),
                to: state, policy: policy
            ).state
        }
        #expect(state?.donations["e"]?.count == 3)
    }

    // MARK: Per-user caps: refused on new writes, never on replay.

    static let small = ContextLimits(
        maxCounters: 2, maxEvents: 2, maxFlags: 2, maxAttributes: 2, maxSegments: 2, maxDonationEvents: 2,
        maxAttributeValueBytes: 16, maxKeyBytes: 8)

    /// An action that adds a key to one of the capped maps.
    enum Growth: CaseIterable, Sendable {
        case increment, setCounter, recordEvent, setFlag, toggleFlag, setAttribute, addSegment, donate

        func action(_ key: String) -> Action {
            switch self {
            case .increment: return .increment(counter: key, by: 1)
            case .setCounter: return .setCounter(counter: key, value: 1)
            case .recordEvent: return .recordEvent(event: key, at: t0)
            case .setFlag: return .setFlag(flag: key, value: true)
            case .toggleFlag: return .toggleFlag(flag: key)
            case .setAttribute: return .setAttribute(key: key, value: 1)
            case .addSegment: return .addSegment(key)
            case .donate: return .donate(event: key, at: t0, appVersion: nil)
            }
        }

        var limit: ContextLimits.Limit {
            switch self {
            case .increment, .setCounter: return .counters
            case .recordEvent: return .events
            case .setFlag, .toggleFlag: return .flags
            case .setAttribute: return .attributes
            case .addSegment: return .segments
            case .donate: return .donationEvents
            }
        }
    }

    /// For each map: two keys fit, a third is refused (naming the limit); updating a key at the cap works.
    @Test(arguments: Growth.allCases)
    func newKey_pastItsCap_refusesTheBatchNamingTheLimit(growth: Growth) throws {
        let full = try Reducer.apply(mutation("u", growth.action("a"), growth.action("b")), to: UserContext(), limits: Self.small).state
        #expect(throws: ReducerError.limitExceeded(index: 1, limit: growth.limit, value: 2)) {
            try Reducer.apply(mutation("u", growth.action("a"), growth.action("c")), to: full, limits: Self.small)
        }
        let error = ReducerError.limitExceeded(index: 1, limit: growth.limit, value: 2)
        #expect(error.code == "limit_exceeded")
        #expect(error.field == "ops[1]")
        #expect(error.message.contains(growth.limit.configKey) && error.message.contains("2"))
        // The keys already there can still change.
        _ = try Reducer.apply(mutation("u", growth.action("a"), growth.action("b")), to: full, limits: Self.small)
    }

    @Test func donation_toANewEvent_pastTheEventsCap_isRefused() throws {
        let full = try Reducer.apply(
            mutation("u", .recordEvent(event: "a", at: t0), .recordEvent(event: "b", at: t0)), to: UserContext(), limits: Self.small
        ).state
        #expect(throws: ReducerError.limitExceeded(index: 0, limit: .events, value: 2)) {
            try Reducer.apply(mutation("u", .donate(event: "c", at: t0, appVersion: nil)), to: full, limits: Self.small)
        }
    }

    @Test func removing_thenAdding_atTheCap_isAccepted() throws {
        let full = try Reducer.apply(mutation("u", .addSegment("a"), .addSegment("b")), to: UserContext(), limits: Self.small).state
        let swapped = try Reducer.apply(mutation("u", .removeSegment("a"), .addSegment("c")), to: full, limits: Self.small).state
        #expect(swapped?.segments == ["b", "c"])
        let cleared = try Reducer.apply(mutation("u", .clear(.segments), .addSegment("x"), .addSegment("y")), to: full, limits: Self.small).state
        #expect(cleared?.segments == ["x", "y"])
    }

    @Test func attributeValue_pastItsSerializedSize_isRefused() throws {
        #expect(throws: ReducerError.limitExceeded(index: 0, limit: .attributeValueBytes, value: 16)) {
            try Reducer.apply(mutation("u", .setAttribute(key: "a", value: .string(String(repeating: "x", count: 15)))), to: nil, limits: Self.small)
        }
        _ = try Reducer.apply(mutation("u", .setAttribute(key: "a", value: .string(String(repeating: "x", count: 14)))), to: nil, limits: Self.small)
    }

    @Test(arguments: [
        Action.increment(counter: "123456789", by: 1), .setCounter(counter: "123456789", value: 1), .recordEvent(event: "123456789", at: t0),
        .setFlag(flag: "123456789", value: true), .toggleFlag(flag: "123456789"), .setAttribute(key: "123456789", value: 1),
        .addSegment("123456789"), .donate(event: "123456789", at: t0, appVersion: nil)
    ])
    func key_pastItsByteLimit_isRefused(action: Action) {
        #expect(throws: ReducerError.limitExceeded(index: 0, limit: .keyBytes, value: 8)) {
            try Reducer.apply(mutation("u", action), to: nil, limits: Self.small)
        }
    }

    /// A log written under higher caps replays in full under lower ones; after that, keys already there still
    /// change, and only new keys are refused.
    @Test func replay_underLowerCaps_keepsAcknowledgedRecords() throws {
        var state: UserContext?
        for index in 0..<5 {
            _ = try Reducer.applyInPlace(mutation("u", .increment(counter: "c\(index)", by: 1), .addSegment("s\(index)")), to: &state)
        }
        #expect(state?.counters.count == 5)
        #expect(state?.segments.count == 5)
        let updated = try Reducer.apply(mutation("u", .increment(counter: "c4", by: 1), .removeSegment("s0")), to: state, limits: Self.small).state
        #expect(updated?.counters["c4"] == 2)
        #expect(throws: ReducerError.limitExceeded(index: 0, limit: .counters, value: 2)) {
            try Reducer.apply(mutation("u", .increment(counter: "new", by: 1)), to: updated, limits: Self.small)
        }
    }

    @Test func defaultLimits_matchTheDocumentedValues() {
        let limits = ContextLimits()
        let perMap: [Int] = [limits.maxCounters, limits.maxEvents, limits.maxFlags, limits.maxAttributes, limits.maxSegments]
        #expect(perMap == [1000, 1000, 1000, 1000, 1000])
        #expect(limits.maxDonationEvents == 256)
        #expect(limits.maxAttributeValueBytes == 16 * 1024)
        #expect(limits.maxKeyBytes == 256)
    }

    // MARK: Keys are bytes.

    @Test(arguments: ["caf\u{E9}", "caf\u{E9}-a-counter-name-past-the-inline-size"])
    func nfcAndNfdKeys_areTwoKeysInEveryMap(nfc: String) throws {
        let nfd = nfc.replacingOccurrences(of: "\u{E9}", with: "e\u{301}")
        #expect(nfc == nfd && !nfc.bytesEqual(nfd))
        let state = try #require(
            try apply(
                .increment(counter: nfc, by: 1), .increment(counter: nfd, by: 2), .setFlag(flag: nfc, value: true),
                .setFlag(flag: nfd, value: false), .setAttribute(key: nfc, value: 1), .setAttribute(key: nfd, value: 2),
                .addSegment(nfc), .addSegment(nfd), .recordEvent(event: nfc, at: t0), .recordEvent(event: nfd, at: t0 - 1),
                .donate(event: nfc, at: t0, appVersion: nil)))
        #expect(state.counters[nfc] == 1 && state.counters[nfd] == 2)
        #expect(state.counters.keys.contains { $0.bytesEqual(nfd) })
        #expect(state.flags[nfc] == true && state.flags[nfd] == false)
        #expect(state.attributes[nfc] == 1 && state.attributes[nfd] == 2)
        #expect(state.segments.count == 2)
        #expect(state.events[nfc] == t0 && state.events[nfd] == t0 - 1)
        #expect(state.donations[nfc]?.count == 1 && state.donations[nfd] == nil)
        let removed = try #require(try apply(.removeAttribute(key: nfd), .removeSegment(nfd), .resetDonations(event: nfd), to: state))
        #expect(removed.attributes[nfc] == 1 && removed.segments.contains(nfc))
        #expect(removed.donations[nfc]?.count == 1)
    }

    @Test func erase_removesTheUser() throws {
        let result = try Reducer.apply(mutation("u", .increment(counter: "k", by: 1), .erase), to: UserContext())
        #expect(result.state == nil)
        #expect(result.effects.contains(.erased))
    }

    @Test func reducer_isDeterministic() throws {
        var generator = SplitMix(seed: 7)
        for _ in 0..<200 {
            let actions = (0..<5).map { _ in generator.action(now: t0) }
            let m = Mutation(user: "u", now: t0, actions: actions)
            let first = try? Reducer.apply(m, to: UserContext())
            let second = try? Reducer.apply(m, to: UserContext())
            #expect(first?.state == second?.state)
        }
    }
}
