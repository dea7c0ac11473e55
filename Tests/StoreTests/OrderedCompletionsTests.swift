import Foundation
import Synchronization
import Testing

@testable import Store

/// One shard's completions run in apply order, whichever thread's acknowledgement released them, one drainer at a
/// time.
@Suite struct OrderedCompletionsTests {
    static func applied(_ seq: UInt64) -> UserStore.Applied {
        UserStore.Applied(seq: seq, previous: nil, state: nil, effects: [])
    }

    /// A completion that completes another write (as a write's completion may write again) does not run it inside
    /// itself: the drainer runs it next, so the order holds.
    @Test func aCompletionReleasingAnother_runsItAfterItself() {
        let order = OrderedCompletions()
        for seq in 1...3 as ClosedRange<UInt64> { order.register(seq) }
        let ran = Mutex<[String]>([])
        order.complete(2, { _ in ran.withLock { $0.append("2") } }, .success(Self.applied(2)))
        order.complete(
            1,
            { _ in
                ran.withLock { $0.append("1 begins") }
                order.complete(3, { _ in ran.withLock { $0.append("3") } }, .success(Self.applied(3)))
                ran.withLock { $0.append("1 ends") }
            }, .success(Self.applied(1)))
        #expect(ran.withLock { $0 } == ["1 begins", "1 ends", "2", "3"])
    }

    /// Acknowledgements from many threads in any order, drains after drains: every completion runs once, in seq
    /// order, with its own outcome.
    @Test func completionsFromManyThreads_eachRunOnce_inSeqOrder() {
        let order = OrderedCompletions()
        let count = 4_000
        for seq in 1...UInt64(count) { order.register(seq) }
        let ran = Mutex<[UInt64]>([])
        let seqs = (1...UInt64(count)).shuffled()
        DispatchQueue.concurrentPerform(iterations: 4) { part in
            for seq in seqs[(part * count / 4)..<((part + 1) * count / 4)] {
                order.complete(
                    seq,
                    { result in
                        if case .success(let applied) = result { ran.withLock { $0.append(applied.seq) } }
                    }, .success(Self.applied(seq)))
            }
        }
        #expect(ran.withLock { $0 } == Array(1...UInt64(count)))
    }
}
