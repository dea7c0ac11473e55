import Foundation
import Rules
import Store
import Synchronization
import Testing

@testable import Engine

/// The webhooks' flag watch keeps one instant per written user; an erased user's must go with them.
@Suite struct WebhookFlagWatchTests {
    @Test func erasingAUser_dropsTheirBaseline_andAWrittenUserKeepsTheirs() throws {
        var made: WebhookFlagWatch?
        let (engine, clock, database) = try EngineWritePathTests.engine(rules: EngineWritePathTests.rules) { rules, store, clock in
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
    }
}
