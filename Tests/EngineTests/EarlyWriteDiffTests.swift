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
        if early.claim() {
            runs.withLock { $0 += 1 }
            early.store(Self.emptyDiff)
        }
        // Taken into locals: the diff's state cannot be copied, and the expectation macros copy what they call.
        let first = early.take(), second = early.take()
        #expect(first != nil)
        #expect(second == nil)
        #expect(runs.withLock { $0 } == 1)
    }

    /// The completion came first: the early work, arriving late, computes nothing.
    @Test func aDiffTakenBeforeTheEarlyWork_isNotComputedAfterwards() {
        let early = EarlyWriteDiff()
        let first = early.take()
        #expect(first == nil)
        let runs = Mutex(0)
        if early.claim() {
            runs.withLock { $0 += 1 }
            early.store(Self.emptyDiff)
        }
        let second = early.take()
        #expect(runs.withLock { $0 } == 0)
        #expect(second == nil)
    }

    /// The write in flight computes its diff early from the applied write, once, by the rules it was made with;
    /// its completion takes that diff instead of computing another.
    @Test func aWriteInFlight_computesItsDiffEarly_fromTheAppliedWrite_once() throws {
        let write = try Self.staffWrite()
        write.computeDiff(of: Self.applied)
        let first = write.diff.take(), second = write.diff.take()
        let diff = try #require(first)
        #expect(diff.changes.map(\.key) == ["staff"])
        #expect(second == nil)
    }

    /// Its completion came first: the diff is computed then, and the early work, arriving late, computes nothing.
    @Test func aWriteInFlight_completedFirst_computesTheDiffItself_andNotAgainEarly() throws {
        let write = try Self.staffWrite()
        #expect(write.takeDiff(of: Self.applied).changes.map(\.key) == ["staff"])
        write.computeDiff(of: Self.applied)
        let late = write.diff.take()
        #expect(late == nil)
    }

    /// A write in flight judged by one flag, `staff`, which the segment `s` turns on (`applied` adds it).
    static func staffWrite() throws -> WriteInFlight {
        let rules = try RuleSetCompiler.compile(JSONParser().parse(#"{"flags": {"staff": {"when": {"segment": "s"}}}}"#)).get()
        return WriteInFlight(
            engine: try engine(), served: RulesHost(rules, path: nil).served, now: Instant(milliseconds: 0),
            request: RequestAttributes(userID: "u"), kind: .contextUpdate, completion: { _ in })
    }

    static func engine() throws -> Engine {
        Engine(
            rules: RulesHost(try RuleSetCompiler.compile(JSONParser().parse(#"{"flags": {}}"#)).get(), path: nil),
            store: MemoryContextStore(), subscribers: EngineWritePathTests.Recorder(watching: []),
            clock: EngineWritePathTests.HandClock(), logger: Logger(level: .error, sink: MemoryLogSink()))
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
