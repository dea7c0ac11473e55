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
        let state = try apply(.recordEvent(event: "e", at: t0 - 5), .setAttribute(key: "plan", value: ["seats": 5]), .addSegment("vip"),
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
        let full = try apply(.increment(counter: "c", by: 1), .recordEvent(event: "e", at: t0), .setFlag(flag: "f", value: true),
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
