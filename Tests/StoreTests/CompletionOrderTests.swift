import Foundation
import Rules
import Store
import Synchronization
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
