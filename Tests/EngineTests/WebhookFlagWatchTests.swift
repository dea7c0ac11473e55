import Foundation
import Rules
import Store
import Synchronization
import Testing

@testable import Engine

/// The webhooks' flag watch keeps one instant per written user; an erased user's must go with them, and so must
/// the clock job that watched them.
@Suite struct WebhookFlagWatchTests {
    /// A flag the clock turns on at the start of 2027, for everyone.
    static let rules = #"{"flags": {"launch": {"when": {"dateRange": {"from": "2027-01-01T00:00:00Z"}}}}}"#

    @Test func erasingAUser_dropsTheirBaselineAndClockJob_andAWrittenUserKeepsTheirs() throws {
        var made: WebhookFlagWatch?
        let (engine, clock, database) = try EngineWritePathTests.engine(rules: Self.rules) { rules, store, clock in
            let watch = WebhookFlagWatch(wrapping: OperationTrackerTests.Silent(), rules: rules, store: store, clock: clock, flags: nil)
            made = watch
            return watch
        }
        let watch = try #require(made)
        defer { database.log.close() }
        func write(_ mutation: Mutation) {
            let done = DispatchSemaphore(value: 0)
            engine.update(mutation, appVersion: nil) { _ in done.signal() }
            done.wait()
        }
        write(Mutation(user: "kept", now: clock.now(), actions: [.addSegment("vip")]))
        // A loop that creates and erases users: the users come and go, and so must their baselines.
        for index in 0..<50 {
            write(Mutation(user: "passing-\(index)", now: clock.now(), actions: [.addSegment("vip")]))
            write(Mutation(user: "passing-\(index)", now: clock.now(), actions: [.erase]))
        }
        #expect(watch.watchedUsers == 1)
        // Rescheduled after the erase (every user counted as heard), each erased user's job stayed, and brought its
        // baseline back when it came due.
        #expect(engine.scheduledJobs == 1)
        clock.current.withLock { $0 = Instant(milliseconds: 1_798_761_600_000) }
        engine.runDue(now: clock.now())
        #expect(watch.watchedUsers == 1)
    }
}
