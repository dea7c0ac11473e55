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
    @Test func tasksQueuedWhileTheLoopSleepsOrWorks_allRun_promptly() {
        let loop = EpollEventLoop(tickInterval: .seconds(60))
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
}
#endif
