import Engine
import Foundation
import Rules
import Store
import Synchronization
import Testing

/// A user's clock job is rescheduled only while someone hears them, but it stays until it comes due: every stream
/// opened for a made-up user id left one behind, months long for a date range.
@Suite struct ClockJobSweepTests {
    static let rules = #"{"flags": {"promo": {"when": {"dateRange": {"from": "2027-01-01T00:00:00Z"}}}}}"#

    /// Hears the users in `listening`, and says each of them last saw `promo` off.
    final class Listeners: Subscribers, @unchecked Sendable {
        let listening = Mutex<Set<String>>([])
        let heard = Mutex<[String]>([])
        func publish(_ event: DomainEvent) {
            if case .flagChanged(let user, let key, _, _, _, _) = event { heard.withLock { $0.append("\(user) \(key)") } }
        }
        func hasSubscribers(for user: String) -> Bool { listening.withLock { $0.contains(user) } }
        func wantsContext(for user: String) -> Bool { false }
        func subscribedUsers() -> [String] { listening.withLock { Array($0) } }
        func appVersions(hearing user: String) -> [String?] { [nil] }
        func lastSeen(user: String, appVersion: String?) -> [[ByteKey: JSONValue]] {
            hasSubscribers(for: user) ? [[ByteKey("promo"): .bool(false)]] : []
        }
    }

    @Test func jobsOfUsersNobodyHears_areSweptOut_andAListenersJobIsKept() throws {
        let listeners = Listeners()
        let (engine, clock, database) = try EngineWritePathTests.engine(rules: Self.rules) { _, _, _ in listeners }
        defer { database.log.close() }

        listeners.listening.withLock { _ = $0.insert("keeper") }
        engine.subscribed(user: "keeper")
        // Three thousand streams, each for a new user, each closed again before the next opens.
        for index in 0..<3_000 {
            let user = "made-up-\(index)"
            listeners.listening.withLock { _ = $0.insert(user) }
            engine.subscribed(user: user)
            listeners.listening.withLock { _ = $0.remove(user) }
        }
        // At most twice what the last sweep kept (the sweeps run once the jobs double), never one per stream.
        #expect(engine.scheduledJobs <= 2_048)

        clock.current.withLock { $0 = Instant(milliseconds: 1_798_761_600_000) }
        engine.runDue(now: clock.now())
        #expect(listeners.heard.withLock { $0 } == ["keeper promo"])
    }
}
