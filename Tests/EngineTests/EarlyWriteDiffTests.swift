import Foundation
import Rules
import Store
import Synchronization
import Testing

@testable import Engine

/// A store waiting for an fsync may compute a write's flag diff early (`ContextStore.write`'s early work): the
/// answer and the events are the same whether it ran before the acknowledgement, after it, or never.
@Suite struct EarlyWriteDiffTests {
    enum EarlyTurn: Sendable, CaseIterable {
        case beforeCompletion
        case afterCompletion
        case never
    }

    /// A memory store that claims to work while syncing, and runs the early work at the chosen turn.
    final class EarlyStore: ContextStore, @unchecked Sendable {
        let inner = MemoryContextStore()
        let turn: EarlyTurn
        let earlyRuns = Mutex(0)
        init(turn: EarlyTurn) { self.turn = turn }

        func context(of user: String) -> UserContext? { inner.context(of: user) }
        var limits: ContextLimits { inner.limits }
        var health: StoreHealth { inner.health }
        var usersStillEncoded: Int { 0 }
        var runsWorkWhileSyncing: Bool { true }

        func write(
            _ mutation: Mutation, followUp: (UserContext?, UserContext?) -> [Action],
            early: (@Sendable (UserStore.Applied) -> Void)?, completion: @escaping @Sendable (Result<UserStore.Applied, StoreError>) -> Void
        ) {
            inner.write(mutation, followUp: followUp) { [self] result in
                let applied = try? result.get()
                let runEarly = {
                    if let applied, let early {
                        self.earlyRuns.withLock { $0 += 1 }
                        early(applied)
                    }
                }
                if turn == .beforeCompletion { runEarly() }
                completion(result)
                if turn == .afterCompletion { runEarly() }
            }
        }
    }

    static let rules = #"""
        {"flags": {
           "discount": {"cases": [{"when": {"segment": "vip"}, "value": 50}], "fallback": 0},
           "new-ui": {"when": {"all": [{"segment": "vip"}, {"appVersion": {"gte": "2.0"}}]}}}}
        """#

    /// Two writes under app version 2.1: the diff of each, as answered and as published for version 2.1 and for
    /// streams without a version.
    func run(_ turn: EarlyTurn) throws -> (answers: [[String]], events: [String], earlyRuns: Int) {
        let store = EarlyStore(turn: turn)
        let recorder = EngineWritePathTests.Recorder(watching: ["u1"])
        let clock = EngineWritePathTests.HandClock()
        let engine = Engine(
            rules: RulesHost(try RuleSetCompiler.compile(JSONParser().parse(Self.rules)).get(), path: nil), store: store,
            subscribers: recorder, clock: clock, logger: Logger(level: .error, sink: MemoryLogSink()))
        var answers: [[String]] = []
        for actions in [[Action.addSegment("vip")], [.removeSegment("vip")]] {
            let outcome = Mutex<Result<WriteOutcome, StoreError>?>(nil)
            engine.update(Mutation(user: "u1", now: clock.now(), actions: actions), appVersion: "2.1") { result in
                outcome.withLock { $0 = result }
            }
            let written = try #require(try outcome.withLock { $0 }?.get())
            answers.append(
                written.changes.map { "\($0.key)=\($0.current.value.map { String(decoding: JSONWriter.write($0), as: UTF8.self) } ?? "nil")" })
        }
        return (answers, recorder.events.withLock { $0 }, store.earlyRuns.withLock { $0 })
    }

    @Test func theDiffComputedEarly_late_orNever_answersAndPublishesTheSame() throws {
        let reference = try run(.never)
        #expect(reference.answers == [["discount=50", "new-ui=true"], ["discount=0", "new-ui=false"]])
        for turn in [EarlyTurn.beforeCompletion, .afterCompletion] {
            let other = try run(turn)
            #expect(other.answers == reference.answers, "\(turn)")
            #expect(other.events == reference.events, "\(turn)")
            #expect(other.earlyRuns == 2, "\(turn)")
        }
        // Streams without a version heard `new-ui` stay false: the version-less diff differs from the write's own.
        #expect(reference.events.filter { $0.hasPrefix("flag u1 new-ui") }.count == 2)
    }

    @Test func aDiffComputedEarly_isTakenOnce() {
        let early = EarlyWriteDiff()
        let runs = Mutex(0)
        early.compute {
            runs.withLock { $0 += 1 }
            return Self.emptyDiff
        }
        #expect(early.take() != nil)
        #expect(early.take() == nil)
        #expect(runs.withLock { $0 } == 1)
    }

    /// The completion came first: the early work, arriving late, computes nothing.
    @Test func aDiffTakenBeforeTheEarlyWork_isNotComputedAfterwards() {
        let early = EarlyWriteDiff()
        #expect(early.take() == nil)
        let runs = Mutex(0)
        early.compute {
            runs.withLock { $0 += 1 }
            return Self.emptyDiff
        }
        #expect(runs.withLock { $0 } == 0)
        #expect(early.take() == nil)
    }

    /// Made without a write's inputs (the caller computes the diff itself), the store's early work does nothing.
    @Test func aDiffWithoutInputs_isNotComputedByTheStoresEarlyWork() {
        let early = EarlyWriteDiff()
        early.compute(of: Self.applied)
        #expect(early.take() == nil)
    }

    /// Made with them, the store's early work computes it from the applied write, once.
    @Test func aDiffWithInputs_isComputedFromTheAppliedWrite() throws {
        let rules = try RuleSetCompiler.compile(JSONParser().parse(#"{"flags": {"staff": {"when": {"segment": "s"}}}}"#)).get()
        let served = RulesHost(rules, path: nil).served
        let early = EarlyWriteDiff(served: served, now: Instant(milliseconds: 0), request: RequestAttributes(userID: "u"))
        early.compute(of: Self.applied)
        let diff = try #require(early.take())
        #expect(diff.changes.map(\.key) == ["staff"])
        #expect(early.take() == nil)
    }

    static var applied: UserStore.Applied {
        let applied = Mutex<UserStore.Applied?>(nil)
        MemoryContextStore().write(Mutation(user: "u", now: Instant(milliseconds: 0), actions: [.addSegment("s")])) {
            result in applied.withLock { $0 = try? result.get() }
        }
        return applied.withLock { $0! }
    }

    static var emptyDiff: WriteDiff {
        let applied = Mutex<UserStore.Applied?>(nil)
        MemoryContextStore().write(Mutation(user: "u", now: Instant(milliseconds: 0), actions: [.addSegment("s")])) {
            result in applied.withLock { $0 = try? result.get() }
        }
        return try! RuleSetCompiler.compile(JSONParser().parse(#"{"flags": {}}"#)).get()
            .diff(of: applied.withLock { $0! }, now: Instant(milliseconds: 0), request: RequestAttributes(userID: "u"))
    }
}
