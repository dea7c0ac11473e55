#if canImport(Glibc)
import Foundation
import Glibc
import HTTP
import Synchronization
import Testing

@testable import HTTPServer

/// A round whose hook has a commit pending takes what became ready meanwhile before the hook runs; otherwise the
/// hook runs first and the newcomer waits for the next round.
@Suite struct RoundGatherTests {
    private func firstThree(pending: Bool) -> [String] {
        let loop = EpollEventLoop()
        let log = LoopLog()
        let first = nonBlockingPipe()
        let second = nonBlockingPipe()
        defer { [first.write, second.write].forEach { _ = Glibc.close($0) } }
        let added = loop.addIterationHook({ log.hookRan() }, gatherWhile: { pending })
        #expect(added)
        // The first channel's read makes the second one ready, in the same round.
        loop.add(
            PipeChannel(fd: first.read, name: "a", log: log) { _ in
                var byte: UInt8 = 1
                _ = Glibc.write(second.write, &byte, 1)
            })
        loop.add(PipeChannel(fd: second.read, name: "b", log: log))
        loop.start()
        var byte: UInt8 = 1
        _ = Glibc.write(first.write, &byte, 1)
        for _ in 0..<500 where log.all.count < 3 { Thread.sleep(forTimeInterval: 0.01) }
        loop.stop()
        _ = Glibc.close(first.read)
        _ = Glibc.close(second.read)
        return Array(log.all.prefix(3))
    }

    @Test func aHookWithACommitPending_hasTheRoundGatherWhatBecameReady() {
        #expect(firstThree(pending: true) == ["read a", "read b", "hook"])
    }

    @Test func aHookWithNothingPending_runsBeforeTheNewcomerIsRead() {
        #expect(firstThree(pending: false) == ["read a", "hook", "read b"])
    }
}
#endif
