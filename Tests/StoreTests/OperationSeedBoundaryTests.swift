import Rules
import Store
import Testing

/// The context operations at their boundaries, each naming the seed call it renders (SpecificationKit's
/// DefaultContextProvider: incrementCounter, setCounter, recordEvent, setFlag, toggleFlag).
@Suite struct OperationSeedBoundaryTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let keeps: String
        let name: String
        let actions: [Action]
        let check: @Sendable (UserContext) -> Bool
        var testDescription: String { "\(name) (keeps \(keeps))" }
    }

    static let cases: [Case] = [
        .init(
            keeps: "DefaultContextProvider.incrementCounter: missing reads 0", name: "increment a missing counter",
            actions: [.increment(counter: "k", by: 1)], check: { $0.counters["k"] == 1 }),
        .init(
            keeps: "specd increment: no clamping", name: "increment by a negative amount goes below 0",
            actions: [.increment(counter: "k", by: -2)], check: { $0.counters["k"] == -2 }),
        .init(
            keeps: "specd decrement: floored at 0", name: "decrement a missing counter",
            actions: [.decrement(counter: "k", by: 1)], check: { $0.counters["k"] == 0 }),
        .init(
            keeps: "specd decrement: floored at 0", name: "decrement exactly to 0",
            actions: [.setCounter(counter: "k", value: 3), .decrement(counter: "k", by: 3)], check: { $0.counters["k"] == 0 }),
        .init(
            keeps: "specd decrement: floored at 0", name: "decrement past 0",
            actions: [.setCounter(counter: "k", value: 3), .decrement(counter: "k", by: 4)], check: { $0.counters["k"] == 0 }),
        .init(
            keeps: "DefaultContextProvider.setCounter(_, to:)", name: "setCounter then resetCounter",
            actions: [.setCounter(counter: "k", value: 5), .resetCounter(counter: "k")], check: { $0.counters["k"] == 0 }),
        .init(
            keeps: "DefaultContextProvider.recordEvent(_, at:): overwrites", name: "recordEvent earlier overwrites a later one",
            actions: [.recordEvent(event: "e", at: t0), .recordEvent(event: "e", at: t0 - 1000)], check: { $0.events["e"] == t0 - 1000 }),
        .init(
            keeps: "DefaultContextProvider.toggleFlag: missing reads false", name: "toggle a missing flag",
            actions: [.toggleFlag(flag: "f")], check: { $0.flags["f"] == true }),
        .init(
            keeps: "DefaultContextProvider.setFlag(_, to:)", name: "setFlag false then toggle",
            actions: [.setFlag(flag: "f", value: false), .toggleFlag(flag: "f")], check: { $0.flags["f"] == true }),
        .init(
            keeps: "specd clear: removes keys", name: "clear counters leaves flags",
            actions: [.setCounter(counter: "k", value: 1), .setFlag(flag: "f", value: true), .clear(.counters)],
            check: { $0.counters["k"] == nil && $0.flags["f"] == true }),
        .init(
            keeps: "specd segments: a set", name: "addSegment twice is one membership",
            actions: [.addSegment("vip"), .addSegment("vip"), .removeSegment("vip")], check: { !$0.segments.contains("vip") })
    ]

    @Test(arguments: cases)
    func operation_atItsBoundary(_ test: Case) throws {
        let state = try Reducer.apply(Mutation(user: "u", now: t0, actions: test.actions), to: nil).state
        let context = try #require(state)
        #expect(test.check(context), "\(test.name)")
    }
}
