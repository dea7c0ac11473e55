import Foundation
import Rules
import Store
import Synchronization
import TestRandom
import Testing

@Suite struct CompletionOrderTests {
    @Test func acknowledgementsOutOfOrder_areReleasedInApplyOrder() {
        var order = CompletionOrder<String>()
        for seq: UInt64 in [3, 7, 9] { order.register(seq) }
        #expect(order.complete(9, "nine").isEmpty)
        #expect(order.complete(7, "seven").isEmpty)
        #expect(order.complete(3, "three") == ["three", "seven", "nine"])
        #expect(order.waiting == 0)
    }

    @Test func inOrderAcknowledgements_areReleasedOneByOne() {
        var order = CompletionOrder<Int>()
        order.register(1)
        order.register(2)
        #expect(order.complete(1, 1) == [1])
        #expect(order.complete(2, 2) == [2])
    }

    @Test func unregisteredSeq_isReleasedAtOnce() {
        var order = CompletionOrder<Int>()
        order.register(5)
        #expect(order.complete(4, 4) == [4])
        #expect(order.waiting == 1)
    }

    @Test func longRuns_compactWithoutLosingOrder() {
        var order = CompletionOrder<UInt64>()
        var released: [UInt64] = []
        for seq in UInt64(1)...1000 { order.register(seq) }
        for seq in stride(from: UInt64(1000), through: 2, by: -1) { released += order.complete(seq, seq) }
        #expect(released.isEmpty)
        released += order.complete(1, 1)
        #expect(released == Array(1...1000))
        order.register(1001)
        #expect(order.complete(1001, 1001) == [1001])
    }

    /// Random registrations and acknowledgements, in and out of order, against the definition: a registered seq is
    /// released once every seq registered before it is; an unregistered one at once.
    @Test func randomAcknowledgements_releaseAsTheDefinitionSays() {
        var random = SplitMix(seed: 0x0DDC_0FFE_E0DD_F00D)
        func next(_ bound: Int) -> Int { random.next(upTo: bound) }
        for _ in 0..<300 {
            var order = CompletionOrder<UInt64>()
            var registered: [UInt64] = []
            var unacknowledged: [UInt64] = []
            var acknowledged: Set<UInt64> = []
            var releasedSoFar = 0
            var queue: [UInt64] = []
            var nextSeq: UInt64 = 1
            for _ in 0..<60 {
                if next(3) == 0 || unacknowledged.isEmpty {
                    order.register(nextSeq)
                    registered.append(nextSeq)
                    unacknowledged.append(nextSeq)
                    nextSeq += 1 + UInt64(next(2))
                    continue
                }
                // Mostly the oldest (the usual case), sometimes any, sometimes one never registered.
                let seq: UInt64
                if next(5) == 0 {
                    seq = 1_000_000 + UInt64(next(1000))
                    order.complete(seq, seq, into: &queue)
                    #expect(queue.last == seq)
                    queue.removeLast()
                    continue
                }
                seq = next(2) == 0 ? unacknowledged.removeFirst() : unacknowledged.remove(at: next(unacknowledged.count))
                acknowledged.insert(seq)
                order.complete(seq, seq, into: &queue)
                var expected = releasedSoFar
                while expected < registered.count, acknowledged.contains(registered[expected]) { expected += 1 }
                #expect(queue == Array(registered[..<expected]))
                releasedSoFar = expected
                #expect(order.waiting == registered.count - expected)
            }
        }
    }

    /// Many threads writing one user: each completion must see the seqs in the order they were applied, or a stream
    /// fed by the completions ends on an older state than the store holds.
    @Test(arguments: [FsyncPolicy.interval, .always])
    func concurrentWritesToOneUser_completeInSeqOrder(policy: FsyncPolicy) throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let database = try Database(options: .init(directory: directory, fsync: policy, fsyncInterval: .milliseconds(1)))
        let completed = Mutex<[UInt64]>([])
        let writers = 8, writesEach = 1500
        let done = DispatchGroup()
        for _ in 0..<writers {
            for _ in 0..<writesEach { done.enter() }
        }
        DispatchQueue.concurrentPerform(iterations: writers) { _ in
            for _ in 0..<writesEach {
                database.write(mutation("one", .increment(counter: "c", by: 1))) { result in
                    if case .success(let applied) = result { completed.withLock { $0.append(applied.seq) } }
                    done.leave()
                }
            }
        }
        #expect(done.wait(timeout: .now() + 60) == .success)
        let seqs = completed.withLock { $0 }
        #expect(seqs.count == writers * writesEach)
        #expect(seqs == seqs.sorted(), "completions out of seq order")
        try database.close()
    }
}
