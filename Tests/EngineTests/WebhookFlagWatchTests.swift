import Foundation
import Rules
import Store
import Synchronization
import Testing

@testable import Engine

/// The webhooks' flag watch keeps one instant per written user; an erased user's must go with them.
@Suite struct WebhookFlagWatchTests {
    @Test func erasingAUser_dropsTheirBaseline_andAWrittenUserKeepsTheirs() throws {
        let path = NSTemporaryDirectory() + "specd-flag-watch-\(UUID().uuidString)"
        let rulesPath = path + ".rules.json"
        try EngineWritePathTests.rules.write(toFile: rulesPath, atomically: true, encoding: .utf8)
        let database = try Database(options: .init(directory: path))
        defer { database.log.close() }
        let clock = EngineWritePathTests.HandClock()
        let rules = RulesHost(try RuleSetLoader.load(path: rulesPath).get(), path: rulesPath)
        let watch = WebhookFlagWatch(wrapping: OperationTrackerTests.Silent(), rules: rules, store: database, clock: clock, flags: nil)
        let engine = Engine(rules: rules, store: database, subscribers: watch, clock: clock, logger: Logger(level: .error, sink: MemoryLogSink()))
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
