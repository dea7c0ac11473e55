#if canImport(Glibc)
import Foundation
import Glibc
import Synchronization
import Testing

@testable import HTTPServer

/// `EpollEventLoop.hasWaitingWork`, asked on the loop's thread from a channel's read, as a log batch asks it
/// before it fsyncs: nothing waits, a reply waits for the round's end or was sent at once in it, a task was handed
/// over; a descriptor that became ready meanwhile is not counted.
@Suite struct LoopWaitingWorkTests {
    /// Starts a loop with channel `a`, whose first read runs `body` (on the loop) and records what it returns; then
    /// writes `a`'s pipe and returns the answers once recorded (ten seconds at most).
    private func asked(_ body: @escaping @Sendable (EpollEventLoop, PipeChannel, Int32) -> [Bool]) -> [Bool]? {
        let loop = EpollEventLoop(tickInterval: .seconds(60), idlePoll: IdlePoll(limit: .zero))
        let log = LoopLog()
        let a = nonBlockingPipe()
        let b = nonBlockingPipe()
        defer { [a.read, a.write, b.read, b.write].forEach { _ = Glibc.close($0) } }
        let answers = Mutex<[Bool]?>(nil)
        let bWrite = b.write
        loop.add(
            PipeChannel(fd: a.read, name: "a", log: log) { channel in
                if answers.withLock({ $0 == nil }) {
                    let said = body(loop, channel, bWrite)
                    answers.withLock { $0 = said }
                }
            })
        loop.add(PipeChannel(fd: b.read, name: "b", log: log))
        loop.start()
        defer { loop.stop() }
        var byte: UInt8 = 1
        _ = Glibc.write(a.write, &byte, 1)
        for _ in 0..<1000 {
            if let said = answers.withLock({ $0 }) { return said }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return nil
    }

    /// A descriptor ready since the round's last wait is left to the next round, as under a write load the rest of
    /// a batch's clients are: not counted.
    @Test func nothingWaiting_norADescriptorReadySinceTheRoundsWait_isNoWaitingWork() {
        let said = asked { loop, _, other in
            let idle = loop.hasWaitingWork
            var byte: UInt8 = 1
            _ = Glibc.write(other, &byte, 1)
            return [idle, loop.hasWaitingWork]
        }
        #expect(said == [false, false])
    }

    /// A reply queued for the round's end: its client answers it with its next request soon after the round.
    @Test func aReplyWaitingForTheRoundsEnd_isWaitingWork() {
        let said = asked { loop, channel, _ in
            let before = loop.hasWaitingWork
            _ = loop.sendAtRoundEnd(channel)
            return [before, loop.hasWaitingWork]
        }
        #expect(said == [false, true])
    }

    /// A reply sent at once while its request was read (a cached read's): the round holds that client's next
    /// request and other readers', as it held a queued reply's, until the loop waits again.
    @Test func aReplySentAtOnce_isWaitingWork_untilTheLoopWaitsAgain() {
        let loop = EpollEventLoop(tickInterval: .seconds(60), idlePoll: IdlePoll(limit: .zero))
        let log = LoopLog()
        let a = nonBlockingPipe()
        defer { [a.read, a.write].forEach { _ = Glibc.close($0) } }
        let said = Mutex<[Bool]>([])
        loop.add(
            PipeChannel(fd: a.read, name: "a", log: log) { _ in
                let first = said.withLock { $0.isEmpty }
                let before = loop.hasWaitingWork
                if first { loop.repliedAtOnce() }
                said.withLock { $0 += [before, loop.hasWaitingWork] }
            })
        loop.start()
        defer { loop.stop() }
        var byte: UInt8 = 1
        _ = Glibc.write(a.write, &byte, 1)
        for _ in 0..<1000 where said.withLock({ $0.count }) < 2 { Thread.sleep(forTimeInterval: 0.01) }
        // The second read comes in a round of its own, after the loop waited for it.
        _ = Glibc.write(a.write, &byte, 1)
        for _ in 0..<1000 where said.withLock({ $0.count }) < 4 { Thread.sleep(forTimeInterval: 0.01) }
        #expect(said.withLock { $0 } == [false, true, false, false])
    }

    /// Found by review: asked from a task, the tasks taken with it and not run yet were missed.
    @Test func aTaskTakenWithTheRunningOne_isWaitingWork() {
        let loop = EpollEventLoop(tickInterval: .seconds(60), idlePoll: IdlePoll(limit: .zero))
        loop.start()
        defer { loop.stop() }
        let said = Mutex<[Bool]>([])
        let both = DispatchSemaphore(value: 0)
        // Handed over together from the loop's own thread, so one pass takes both.
        loop.execute {
            loop.execute { said.withLock { $0.append(loop.hasWaitingWork) } }
            loop.execute {
                said.withLock { $0.append(loop.hasWaitingWork) }
                both.signal()
            }
        }
        #expect(both.wait(timeout: .now() + 10) == .success)
        #expect(said.withLock { $0 } == [true, false])
    }

    @Test func aTaskHandedOver_isWaitingWork() {
        let said = asked { loop, _, _ in
            let before = loop.hasWaitingWork
            loop.execute {}
            return [before, loop.hasWaitingWork]
        }
        #expect(said == [false, true])
    }
}
#endif
