#if canImport(Glibc)
import Foundation
import HTTP
import Synchronization
import Testing

@testable import HTTPServer

/// A task handed to the loop from another thread runs whether the loop was asleep in its wait or busy: the
/// `eventfd` is written only while the loop may block. The tick is 60 s here, so a task left asleep would wait
/// that long, and the timeouts turn it into a failure.
@Suite struct LoopWakeTests {
    /// With no idle polling, with the default, and with the longest: a task queued during a poll is found by it.
    @Test(arguments: [Duration.zero, IdlePoll.defaultLimit, IdlePoll.largestLimit])
    func tasksQueuedWhileTheLoopSleepsPollsOrWorks_allRun_promptly(idlePoll: Duration) {
        let loop = EpollEventLoop(tickInterval: .seconds(60), idlePoll: idlePoll)
        loop.start()
        defer { loop.stop() }
        let ran = DispatchSemaphore(value: 0)
        let busy = DispatchSemaphore(value: 0)
        var lost = 0
        for round in 0..<10_000 {
            switch round % 3 {
            case 0:
                // Queued at a random moment after the last task ran: while the loop still ends that round, between
                // its last look at the list and its wait, or asleep.
                let start = MonotonicInstant.now
                let pause = Duration.microseconds(Int64.random(in: 0..<100))
                while MonotonicInstant.now - start < pause {}
                loop.execute { ran.signal() }
            case 1:
                // The loop is busy in a task when the next one is queued, and sleeps only after it.
                loop.execute {
                    busy.signal()
                    let start = MonotonicInstant.now
                    while MonotonicInstant.now - start < .microseconds(200) {}
                }
                _ = busy.wait(timeout: .now() + 5)
                loop.execute { ran.signal() }
            default:
                // Queued from several threads at once.
                DispatchQueue.concurrentPerform(iterations: 4) { _ in loop.execute { ran.signal() } }
                for _ in 0..<3 where ran.wait(timeout: .now() + 5) != .success { lost += 1 }
            }
            if ran.wait(timeout: .now() + 5) != .success { lost += 1 }
            if lost > 0 { break }
        }
        #expect(lost == 0, "a task queued to the loop did not run")
    }

    /// Tasks 50 µs apart: with polling allowed the loop soon finds them while it polls (the window grew to cover
    /// the gaps), where without it every one ends a sleep.
    @Test(arguments: [(Duration.zero, false), (IdlePoll.largestLimit, true)])
    func tasksComingFasterThanTheLimit_areFoundWhileThePollRuns(idlePoll: Duration, polls: Bool) {
        let loop = EpollEventLoop(tickInterval: .seconds(60), idlePoll: idlePoll)
        loop.start()
        let ran = DispatchSemaphore(value: 0)
        for _ in 0..<2_000 {
            let start = MonotonicInstant.now
            while MonotonicInstant.now - start < .microseconds(50) {}
            loop.execute { ran.signal() }
            _ = ran.wait(timeout: .now() + 5)
        }
        loop.stop()
        let stretches = loop.idleStretches.load(ordering: .relaxed)
        let polled = loop.idleStretchesEndedPolling.load(ordering: .relaxed)
        if polls {
            // Most, not all: the test's own thread shares the machine's CPUs with the loop.
            #expect(stretches > 0 && polled * 2 > stretches, "\(polled) of \(stretches) idle stretches ended while polling")
        } else {
            #expect(polled == 0)
        }
    }
}
#endif
