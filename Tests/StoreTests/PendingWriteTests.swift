import Synchronization
import Testing

@testable import Store

/// What `Database.write` hands the log for one write: its early work and its acknowledgement, through one object.
@Suite struct PendingWriteTests {
    static func applied(seq: UInt64) -> UserStore.Applied {
        UserStore.Applied(seq: seq, previous: nil, state: nil, effects: [])
    }

    @Test func runEarly_givesTheEarlyWorkTheAppliedWrite() {
        let seen = Mutex<[UInt64]>([])
        let pending = PendingWrite(
            applied: Self.applied(seq: 7), order: OrderedCompletions(), completion: { _ in },
            early: { applied in seen.withLock { $0.append(applied.seq) } })
        pending.runEarly()
        #expect(seen.withLock { $0 } == [7])
    }

    @Test func runEarly_withoutEarlyWork_doesNothing() {
        let called = Mutex(false)
        let pending = PendingWrite(
            applied: Self.applied(seq: 1), order: OrderedCompletions(), completion: { _ in called.withLock { $0 = true } },
            early: nil)
        pending.runEarly()
        #expect(!called.withLock { $0 })
    }

    /// Acknowledged, the completion hears the applied write itself; failed, a storage failure; each in the shard's
    /// order, so a later write acknowledged first waits for the earlier one.
    @Test func acknowledged_completesInTheShardsOrder_successOrStorageFailure() {
        let order = OrderedCompletions()
        order.register(1)
        order.register(2)
        let heard = Mutex<[String]>([])
        let first = Self.applied(seq: 1)
        let earlier = PendingWrite(
            applied: first, order: order,
            completion: { result in
                if case .success(let applied) = result { heard.withLock { $0.append(applied === first ? "1 ok" : "1 other") } }
            }, early: nil)
        let later = PendingWrite(
            applied: Self.applied(seq: 2), order: order,
            completion: { result in
                if case .failure(.storageFailed) = result { heard.withLock { $0.append("2 failed") } }
            }, early: nil)
        later.acknowledged(.failure(StorageFailure(IOError(call: "fdatasync", path: "log", code: 5))))
        #expect(heard.withLock { $0 }.isEmpty)
        earlier.acknowledged(.success(1))
        #expect(heard.withLock { $0 } == ["1 ok", "2 failed"])
    }
}
