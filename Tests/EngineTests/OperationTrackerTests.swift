import Engine
import Foundation
import Rules
import Store
import Synchronization
import Testing

/// The tracker alone: Statable's states, the bound on finished operations, the store's activity, other sources.
@Suite struct OperationTrackerTests {
    final class Clock: WallClock, @unchecked Sendable {
        let current = Mutex(Instant(milliseconds: 1_773_144_000_000))
        func now() -> Instant { current.withLock { $0 } }
        func advance(_ milliseconds: Int64) { current.withLock { $0 = $0 + milliseconds } }
    }

    @Test func beginThenFinish_movesLoadingToLoadedOrFailed() {
        let clock = Clock()
        let tracker = OperationTracker(clock: clock)
        let good = tracker.begin("reload")
        let bad = tracker.begin("reload")
        #expect(tracker.operations.map(\.state) == [.loading, .loading])
        clock.advance(250)
        tracker.finish(good, detail: ["version": "v2"])
        tracker.finish(bad, error: "2 errors")
        let listed = tracker.operations
        #expect(listed.map(\.id) == [bad, good])
        #expect(listed[0].state == .failed && listed[0].error == "2 errors")
        #expect(listed[1].state == .loaded && listed[1].detail["version"] == "v2")
        #expect(listed[1].finishedAt == listed[1].startedAt + 250)
    }

    /// Below the bound, at it, one past it, and after wrapping around the ring more than once.
    @Test(arguments: [1, 99, 100, 101, 150, 250, 333])
    func finished_areBoundedToTheNewest_newestFirst(count: Int) {
        let tracker = OperationTracker(clock: Clock())
        var ids: [String] = []
        for index in 0..<count {
            ids.append(tracker.begin("snapshot", detail: ["n": .int(index)]))
            tracker.finish(ids.last!)
        }
        let listed = tracker.operations
        let kept = min(count, OperationTracker.finishedLimit)
        #expect(listed.count == kept)
        #expect(listed.map { $0.detail["n"] } == (count - kept..<count).reversed().map { .int($0) })
        #expect(tracker.operation(ids.last!)?.detail["n"] == .int(count - 1))
        #expect(tracker.operation(ids[count - kept])?.detail["n"] == .int(count - kept))
        if count > kept { #expect(tracker.operation(ids[count - kept - 1]) == nil) }
    }

    /// Settled delayed fires are kept as closures: made only when listed or looked up, and only while still kept,
    /// in their place among the operations recorded made.
    @Test func recordLazily_makesOnlyWhatIsStillKept_inItsPlaceAmongTheOthers() {
        final class Count: Sendable {
            let value = Mutex(0)
        }
        let tracker = OperationTracker(clock: Clock())
        let made = Count()
        func fire(_ index: Int) {
            tracker.recordLazily {
                made.value.withLock { $0 += 1 }
                return TrackedOperation(
                    id: "fire-\(index)", kind: TrackedOperation.Kind.delayedFire, state: .loaded, startedAt: Instant(milliseconds: 0))
            }
        }
        for index in 0..<120 { fire(index) }
        tracker.record(TrackedOperation(id: "", kind: "recovery", state: .loaded, startedAt: Instant(milliseconds: 0)))
        for index in 120..<150 { fire(index) }
        #expect(made.value.withLock { $0 } == 0)
        let listed = tracker.operations
        #expect(listed.count == OperationTracker.finishedLimit)
        #expect(listed.prefix(31).map(\.id) == (120..<150).reversed().map { "fire-\($0)" } + ["recovery-1"])
        #expect(listed.last?.id == "fire-51")
        #expect(made.value.withLock { $0 } == OperationTracker.finishedLimit - 1)
        #expect(tracker.operation("fire-60")?.id == "fire-60")
        #expect(tracker.operation("fire-50") == nil)
    }

    @Test func discard_forgetsAnOperationThatDidNothing() {
        let tracker = OperationTracker(clock: Clock())
        tracker.discard(tracker.begin("reload"))
        #expect(tracker.operations.isEmpty)
    }

    /// Another source (webhook deliveries) is listed with the tracker's own, and found by id.
    @Test func addSource_isListedAfterTheOwnOperations() {
        let clock = Clock()
        let tracker = OperationTracker(clock: clock)
        tracker.finish(tracker.begin("reload"))
        let delivery = TrackedOperation(id: "webhook-7", kind: "webhookDelivery", state: .failed, startedAt: clock.now(), error: "HTTP 500")
        tracker.addSource { [delivery] }
        #expect(tracker.operations.map(\.kind) == ["reload", "webhookDelivery"])
        #expect(tracker.operation("webhook-7") == delivery)
    }

    /// The engine lists the store's snapshot and compaction as the store reports them.
    @Test func engine_listsStoreActivity() throws {
        let directory = NSTemporaryDirectory() + "specd-tracker-\(UUID().uuidString)"
        let database = try Database(options: .init(directory: directory, fsync: .never))
        defer { database.closeWithoutSnapshot() }
        let ruleSet = try RuleSetLoader.load(text: #"{"flags": {}}"#, name: "t").get()
        let engine = Engine(
            rules: RulesHost(ruleSet, path: nil), store: database, subscribers: Silent(), clock: Clock(),
            logger: Logger(level: .error, sink: MemoryLogSink()))
        _ = try database.writeAndWait(Mutation(user: "u", now: Instant(milliseconds: 0), actions: [.increment(counter: "k", by: 1)]))
        try database.takeSnapshot()
        let listed = engine.operationList.map { "\($0.kind) \($0.state.rawValue) \($0.detail["seq"]?.numberValue?.int ?? -1)" }
        #expect(listed == ["compaction loaded 1", "snapshot loaded 1"])
    }

    final class Silent: Subscribers, @unchecked Sendable {
        func publish(_ event: DomainEvent) {}
        func hasSubscribers(for user: String) -> Bool { false }
        func wantsContext(for user: String) -> Bool { false }
        func subscribedUsers() -> [String] { [] }
        func lastSeen(user: String, appVersion: String?) -> [[ByteKey: JSONValue]] { [] }
        func appVersions(hearing user: String) -> [String?] { [] }
    }
}
