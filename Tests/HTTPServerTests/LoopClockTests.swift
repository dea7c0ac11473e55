#if canImport(Glibc)
import Foundation
import Glibc
import HTTP
import Synchronization
import Testing

@testable import HTTPServer

/// The epoll loop reads the monotonic clock once when its wait returns and once at the end of the round: the
/// channels of one pass share a reading, and the next pass has a later one.
@Suite struct LoopClockTests {
    /// Readings of `loop.now` and of the clock itself, taken on the loop thread.
    private final class Readings: @unchecked Sendable {
        private let lock = NSLock()
        private var taken: [(loop: MonotonicInstant, clock: MonotonicInstant)] = []
        func add(_ loop: MonotonicInstant, _ clock: MonotonicInstant) { lock.withLock { taken.append((loop, clock)) } }
        var all: [(loop: MonotonicInstant, clock: MonotonicInstant)] { lock.withLock { taken } }
    }

    private func waitFor(_ count: Int, _ readings: Readings) {
        for _ in 0..<500 where readings.all.count < count { Thread.sleep(forTimeInterval: 0.01) }
    }

    @Test func theChannelsOfOnePass_shareOneReading_thoughTheClockMovedBetweenThem() {
        let loop = EpollEventLoop()
        let readings = Readings()
        let first = nonBlockingPipe()
        let second = nonBlockingPipe()
        defer { [first.write, second.write].forEach { _ = Glibc.close($0) } }
        // Each channel spends 3 ms reading, so the clock moves a good deal within the pass.
        for pipe in [first, second] {
            loop.add(
                PipeChannel(fd: pipe.read, name: "\(pipe.read)", log: LoopLog()) { _ in
                    let before = MonotonicInstant.now
                    while MonotonicInstant.now - before < .milliseconds(3) {}
                    readings.add(loop.now, MonotonicInstant.now)
                })
        }
        var byte: UInt8 = 1
        // Both ready before the loop's first wait: one pass reads both.
        _ = Glibc.write(first.write, &byte, 1)
        _ = Glibc.write(second.write, &byte, 1)
        loop.start()
        waitFor(2, readings)
        loop.stop()
        [first.read, second.read].forEach { _ = Glibc.close($0) }
        let taken = readings.all
        #expect(taken.count == 2)
        guard taken.count == 2 else { return }
        #expect(taken[0].loop == taken[1].loop)
        #expect(taken[1].clock - taken[0].loop >= .milliseconds(6))
        // Never ahead of the clock.
        #expect(taken.allSatisfy { $0.loop <= $0.clock })
    }

    @Test func theNextPass_hasALaterReading() {
        let loop = EpollEventLoop()
        let readings = Readings()
        let pipe = nonBlockingPipe()
        defer { _ = Glibc.close(pipe.write) }
        loop.add(PipeChannel(fd: pipe.read, name: "a", log: LoopLog()) { _ in readings.add(loop.now, MonotonicInstant.now) })
        loop.start()
        var byte: UInt8 = 1
        _ = Glibc.write(pipe.write, &byte, 1)
        waitFor(1, readings)
        Thread.sleep(forTimeInterval: 0.02)
        _ = Glibc.write(pipe.write, &byte, 1)
        waitFor(2, readings)
        loop.stop()
        _ = Glibc.close(pipe.read)
        let taken = readings.all
        #expect(taken.count == 2)
        guard taken.count == 2 else { return }
        // Read when this pass's wait returned, 20 ms after the first pass's reading.
        #expect(taken[1].loop - taken[0].loop >= .milliseconds(20))
        #expect(taken[1].loop <= taken[1].clock)
    }

    @Test func aTaskFromAnotherThread_seesTheReadingOfThePassThatRunsIt() {
        let loop = EpollEventLoop()
        let readings = Readings()
        loop.start()
        Thread.sleep(forTimeInterval: 0.01)
        let asked = MonotonicInstant.now
        loop.execute { readings.add(loop.now, MonotonicInstant.now) }
        waitFor(1, readings)
        loop.stop()
        let taken = readings.all
        #expect(taken.count == 1)
        guard let reading = taken.first else { return }
        // The wake-up's pass read the clock after the task was queued.
        #expect(reading.loop >= asked)
        #expect(reading.loop <= reading.clock)
    }

    @Test func theDispatchLoop_readsTheClockOnEachCall() {
        let loop = DispatchEventLoop(label: "clock-test")
        let first = loop.now
        Thread.sleep(forTimeInterval: 0.005)
        #expect(loop.now - first >= .milliseconds(5))
    }
}
#endif
