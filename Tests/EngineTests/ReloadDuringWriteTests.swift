import Engine
import Foundation
import Rules
import Store
import Synchronization
import Testing

/// A donation is judged by the rules live when it was received, for its immediate fires and its delayed scheduling
/// alike, even when a reload lands before the log acknowledges it (docs/rules.md, "Triggers").
@Suite struct ReloadDuringWriteTests {
    /// Applies at once, as the daemon's store does, but holds each acknowledgement until `release()`: a write in
    /// flight while the rules change.
    final class HeldStore: ContextStore, @unchecked Sendable {
        let inner = MemoryContextStore()
        let held = Mutex<[@Sendable () -> Void]>([])

        func context(of user: String) -> UserContext? { inner.context(of: user) }
        var limits: ContextLimits { inner.limits }
        var health: StoreHealth { inner.health }
        var usersStillEncoded: Int { 0 }
        var runsWorkWhileSyncing: Bool { false }

        func write(
            _ mutation: Mutation, followUp: (UserContext?, UserContext?) -> [Action],
            early: (@Sendable (UserStore.Applied) -> Void)?, completion: @escaping @Sendable (Result<UserStore.Applied, StoreError>) -> Void
        ) {
            inner.write(mutation, followUp: followUp) { result in self.held.withLock { $0.append { completion(result) } } }
        }

        func release() {
            let waiting = held.withLock { held -> [@Sendable () -> Void] in
                defer { held.removeAll() }
                return held
            }
            for acknowledge in waiting { acknowledge() }
        }
    }

    static let delayed = #"{"flags": {}, "triggers": {"t": {"on": ["appStarted"], "delay": "5s"}}}"#
    static let immediate = #"{"flags": {}, "triggers": {"t": {"on": ["appStarted"]}}}"#

    /// Donates under `before`, reloads `after` while the write waits for its acknowledgement, then acknowledges it.
    func donateAcrossAReload(before: String, after: String) throws -> (fired: [String], pending: [(String, String, Instant)], now: Instant) {
        let store = HeldStore()
        let clock = EngineWritePathTests.HandClock()
        let engine = Engine(
            rules: RulesHost(try RuleSetCompiler.compile(JSONParser().parse(before)).get(), path: nil), store: store,
            subscribers: EngineWritePathTests.Recorder(watching: []), clock: clock,
            logger: Logger(level: .error, sink: MemoryLogSink()))
        let outcome = Mutex<Result<WriteOutcome, StoreError>?>(nil)
        let now = clock.now()
        engine.donate(user: "u1", event: "appStarted", at: now, appVersion: nil, now: now) { result in outcome.withLock { $0 = result } }
        let newer = try RuleSetCompiler.compile(JSONParser().parse(after)).get()
        guard case .loaded = engine.reloadRules(using: { .success(newer) }) else { throw ReloadRefused() }
        #expect(outcome.withLock { $0 } == nil, "acknowledged before the reload")
        store.release()
        let written = try #require(try outcome.withLock { $0 }?.get())
        return (written.fired.map(\.trigger), engine.pendingFires.map { ($0.user, $0.trigger, $0.due) }, now)
    }

    struct ReloadRefused: Error {}

    /// Before: the delayed pass read the rules current at acknowledgement, where `t` fires at once, while the
    /// immediate pass had used the old ones, where it waits: the donation's fire was lost.
    @Test func delayedThenImmediate_theDonationIsStillScheduled() throws {
        let result = try donateAcrossAReload(before: Self.delayed, after: Self.immediate)
        #expect(result.fired.isEmpty)
        #expect(result.pending.map(\.1) == ["t"])
        #expect(result.pending.first?.2 == result.now + 5_000)
    }

    /// Before: `t` fired at once under the old rules and was scheduled again under the new: two fires.
    @Test func immediateThenDelayed_firesOnce_andSchedulesNothing() throws {
        let result = try donateAcrossAReload(before: Self.immediate, after: Self.delayed)
        #expect(result.fired == ["t"])
        #expect(result.pending.isEmpty)
    }
}
