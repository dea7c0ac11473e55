import Engine
import Foundation
import Rules
import Store
import Synchronization
import Testing

/// The engine alone, over a real store in a temporary directory, a clock moved by hand and subscribers that
/// record what they hear: no HTTP anywhere.
@Suite struct EngineWritePathTests {
    static let rules = #"""
        {"flags": {"discount": {"cases": [{"when": {"segment": "vip"}, "value": 50}], "fallback": 0}},
         "triggers": {
           "later": {"on": ["appStarted"], "when": {"not": {"flag": "opted_out"}}, "delay": "5s", "throttle": "1 month"},
           "now": {"on": ["appStarted"], "when": {"donations": {"event": "appStarted", "gte": 1}}, "throttle": "1 month"}}}
        """#

    final class Recorder: Subscribers, @unchecked Sendable {
        let events = Mutex<[String]>([])
        let watching: Set<String>
        init(watching: Set<String>) { self.watching = watching }
        func publish(_ event: DomainEvent) {
            let line: String
            switch event {
            case .flagChanged(let user, let key, let evaluation, _, _, _):
                line = "flag \(user) \(key)=\(evaluation.value.map { String(decoding: JSONWriter.write($0), as: UTF8.self) } ?? "nil")"
            case .triggerFired(let user, let trigger, _, _): line = "trigger \(user) \(trigger)"
            case .contextChanged(let user, let context, _): line = "context \(user) \(context == nil ? "erased" : "set")"
            case .rulesReloaded(let version): line = "rules \(version)"
            }
            events.withLock { $0.append(line) }
        }
        func hasSubscribers(for user: String) -> Bool { watching.contains(user) }
        func wantsContext(for user: String) -> Bool { watching.contains(user) }
        func subscribedUsers() -> [String] { Array(watching) }
        func appVersions(hearing user: String) -> [String?] { [] }
        func lastSeen(user: String, appVersion: String?) -> [[ByteKey: JSONValue]] { [] }
    }

    final class HandClock: WallClock, @unchecked Sendable {
        let current = Mutex(Instant(milliseconds: 1_773_144_000_000))
        func now() -> Instant { current.withLock { $0 } }
        func advance(_ milliseconds: Int64) { current.withLock { $0 = $0 + milliseconds } }
    }

    struct Fixture {
        let engine: Engine
        let recorder: Recorder
        let clock: HandClock
        let database: Database
    }

    func fixture(rules text: String = Self.rules) throws -> Fixture {
        let recorder = Recorder(watching: ["u1"])
        let (engine, clock, database) = try Self.engine(rules: text) { _, _, _ in recorder }
        return Fixture(engine: engine, recorder: recorder, clock: clock, database: database)
    }

    /// An engine over a fresh store in a temporary directory, with these rules, a hand clock, and the subscribers
    /// `subscribers` makes from the rules host, the store and the clock.
    static func engine(
        rules text: String, subscribers: (RulesHost, Database, HandClock) -> any Subscribers
    ) throws -> (Engine, HandClock, Database) {
        let path = NSTemporaryDirectory() + "specd-engine-\(UUID().uuidString)"
        let rulesPath = path + ".rules.json"
        try text.write(toFile: rulesPath, atomically: true, encoding: .utf8)
        let database = try Database(options: .init(directory: path))
        let clock = HandClock()
        let rules = RulesHost(try RuleSetLoader.load(path: rulesPath).get(), path: rulesPath)
        let engine = Engine(
            rules: rules, store: database, subscribers: subscribers(rules, database, clock), clock: clock,
            logger: Logger(level: .error, sink: MemoryLogSink()))
        return (engine, clock, database)
    }

    func wait(_ body: (@escaping @Sendable (Result<WriteOutcome, StoreError>) -> Void) -> Void) -> Result<WriteOutcome, StoreError> {
        let done = DispatchSemaphore(value: 0)
        let result = Mutex<Result<WriteOutcome, StoreError>?>(nil)
        body { outcome in
            result.withLock { $0 = outcome }
            done.signal()
        }
        done.wait()
        return result.withLock { $0! }
    }

    @Test func donation_firesImmediateTriggers_inTheSameStep_andCountsThem() throws {
        let f = try fixture()
        defer { f.database.log.close() }
        let outcome = try wait {
            f.engine.donate(user: "u1", event: "appStarted", at: f.clock.now(), appVersion: nil, now: f.clock.now(), completion: $0)
        }.get()
        #expect(outcome.fired.map(\.trigger) == ["now"])
        #expect(f.recorder.events.withLock { $0 } == ["trigger u1 now", "context u1 set"])
        let metrics = f.engine.metrics.render(counters: [], gauges: [])
        #expect(metrics.contains("specd_donations_total 1"))
        #expect(metrics.contains("specd_trigger_fires_total 1"))
    }

    /// Before the engine, a delayed fire wrote on its own path: no flag diff, not counted in
    /// `trigger_fires_total`. Now every write goes one way.
    @Test func delayedFire_goesThroughTheOneWritePath_countedAndPublished() throws {
        let f = try fixture()
        defer { f.database.log.close() }
        _ = try wait { f.engine.donate(user: "u1", event: "appStarted", at: f.clock.now(), appVersion: nil, now: f.clock.now(), completion: $0) }
            .get()
        #expect(f.engine.scheduledJobs >= 1)
        f.clock.advance(5_000)
        f.engine.runDue(now: f.clock.now())
        f.database.log.flush()
        let deadline = Date().addingTimeInterval(5)
        while !f.recorder.events.withLock({ $0.contains("trigger u1 later") }), Date() < deadline { Thread.sleep(forTimeInterval: 0.005) }
        #expect(f.recorder.events.withLock { $0.contains("trigger u1 later") })
        #expect(f.engine.metrics.render(counters: [], gauges: []).contains("specd_trigger_fires_total 2"))
        #expect(f.database.context(of: "u1")?.triggerFires["later"] != nil)
    }

    @Test func contextUpdate_reportsTheFlagsItChanged_andPublishesThemInOrder() throws {
        let f = try fixture()
        defer { f.database.log.close() }
        let outcome = try wait {
            f.engine.update(Mutation(user: "u1", now: f.clock.now(), actions: [.addSegment("vip")]), appVersion: nil, completion: $0)
        }.get()
        #expect(outcome.changes.map { $0.key } == ["discount"])
        #expect(f.recorder.events.withLock { $0 } == ["flag u1 discount=50", "context u1 set"])
    }

    @Test func reload_isOneWay_countsLogsAndTellsSubscribers() throws {
        let f = try fixture()
        defer { f.database.log.close() }
        guard case .loaded = f.engine.reloadRules() else {
            Issue.record("the reload did not load")
            return
        }
        #expect(f.recorder.events.withLock { $0 }.first?.hasPrefix("rules ") == true)
        #expect(f.engine.metrics.render(counters: [], gauges: []).contains(#"specd_rule_reloads_total{result="loaded"} 1"#))
    }
}
