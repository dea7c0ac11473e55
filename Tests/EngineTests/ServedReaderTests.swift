import Foundation
import Rules
import Synchronization
import Testing

@testable import Engine

/// A read lends the set the thread already holds while the host serves it, and the newly served one after a
/// reload; a read nested in another sees the outer one's set; threads and hosts never see each other's sets.
@Suite struct ServedReaderTests {
    static func rules(_ flag: String) throws -> RuleSet {
        try RuleSetCompiler.compile(JSONParser().parse(#"{"flags": {"\#(flag)": {"when": {"segment": "s"}}}}"#)).get()
    }

    static func flagKeys(_ host: RulesHost) -> [String] { host.withServed { $0.rules.flagKeys } }

    @Test func aRead_afterAReload_findsTheNewSet() throws {
        let host = RulesHost(try Self.rules("first"), path: nil)
        #expect(Self.flagKeys(host) == ["first"])
        let newer = try Self.rules("second")
        #expect(host.reload(using: { .success(newer) }) != nil)
        #expect(Self.flagKeys(host) == ["second"])
        #expect(host.served.rules.flagKeys == ["second"])
        #expect(host.withServed { $0.number } == host.served.number)
    }

    @Test func aFailedReload_leavesTheSetReadsFind() throws {
        let host = RulesHost(try Self.rules("first"), path: nil)
        #expect(Self.flagKeys(host) == ["first"])
        _ = host.reload(using: { .failure(RuleSetError([])) })
        #expect(Self.flagKeys(host) == ["first"])
    }

    @Test func twoReads_withoutAReload_lendOneSet() throws {
        let host = RulesHost(try Self.rules("first"), path: nil)
        let first = host.withServed { ObjectIdentifier($0) }
        let second = host.withServed { ObjectIdentifier($0) }
        #expect(first == second)
        #expect(host.withServed { $0.number } == host.served.number)
    }

    /// Hosts alternating on one thread: each read finds its own host's set, though the thread holds one at a time
    /// (the set's number, never given twice, tells them apart).
    @Test func readsOfTwoHosts_onOneThread_eachFindTheirHostsSet() throws {
        let one = RulesHost(try Self.rules("one"), path: nil)
        let two = RulesHost(try Self.rules("two"), path: nil)
        for _ in 0..<3 {
            #expect(Self.flagKeys(one) == ["one"])
            #expect(Self.flagKeys(two) == ["two"])
        }
    }

    /// A reload between an outer read and a read nested in it: the nested one lends the outer one's set (which it
    /// must not release while the outer one uses it), and the next read after both finds the new one.
    @Test func aReadNestedInAnother_acrossAReload_findsTheOuterOnesSet() throws {
        let host = RulesHost(try Self.rules("first"), path: nil)
        let newer = try Self.rules("second")
        let (outer, nested, outerAfter) = host.withServed { served -> ([String], [String], [String]) in
            let before = served.rules.flagKeys
            _ = host.reload(using: { .success(newer) })
            let inner = Self.flagKeys(host)
            return (before, inner, served.rules.flagKeys)
        }
        #expect(outer == ["first"])
        #expect(nested == ["first"])
        #expect(outerAfter == ["first"])
        #expect(Self.flagKeys(host) == ["second"])
    }

    /// An error thrown by the body reaches the caller as thrown, and the next read still works.
    @Test func anErrorThrownInARead_isRethrown() throws {
        struct Refused: Error, Equatable {}
        let host = RulesHost(try Self.rules("first"), path: nil)
        #expect(throws: Refused.self) { try host.withServed { _ throws(Refused) in throw Refused() } }
        #expect(Self.flagKeys(host) == ["first"])
    }

    /// A read of one host nested in a read of another finds its own host's set, not the outer one's.
    @Test func aReadOfAnotherHost_nestedInARead_findsItsOwnHostsSet() throws {
        let one = RulesHost(try Self.rules("one"), path: nil)
        let two = RulesHost(try Self.rules("two"), path: nil)
        let (outer, nested, nestedSame) = one.withServed { served in
            (served.rules.flagKeys, Self.flagKeys(two), Self.flagKeys(one))
        }
        #expect(outer == ["one"])
        #expect(nested == ["two"])
        #expect(nestedSame == ["one"])
        // And the thread's next reads of each still find their own.
        #expect(Self.flagKeys(two) == ["two"])
        #expect(Self.flagKeys(one) == ["one"])
    }

    /// A thread holds the set it last read until it reads again or ends: once it has ended, a set the host no
    /// longer serves is freed.
    @Test func aThreadsSet_isLetGo_whenTheThreadEnds() throws {
        let host = RulesHost(try Self.rules("first"), path: nil)
        weak let first = host.served
        #expect(first != nil)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            _ = Self.flagKeys(host)
            done.signal()
        }
        done.wait()
        let newer = try Self.rules("second")
        _ = host.reload(using: { .success(newer) })
        // The thread's slot is released as the thread exits, just after its closure returned.
        let deadline = Date().addingTimeInterval(2)
        while first != nil, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        #expect(first == nil)
    }

    /// Readers on many threads racing reloads: every read finds a set the host served, no thread ever finds an
    /// older set after a newer one, and once the reloads are done every thread finds the last one.
    @Test func readsOnManyThreads_racingReloads_findServedSetsInOrder() throws {
        let host = RulesHost(try Self.rules("set0"), path: nil)
        let sets = try (1...20).map { try Self.rules("set\($0)") }
        let wrong = Atomic<Int>(0)
        let reads = Atomic<Int>(0)
        let stop = Atomic<Bool>(false)
        let group = DispatchGroup()
        for _ in 0..<4 {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                var last = -1
                while !stop.load(ordering: .acquiring) {
                    let keys = Self.flagKeys(host)
                    reads.add(1, ordering: .relaxed)
                    guard keys.count == 1, keys[0].hasPrefix("set"), let index = Int(keys[0].dropFirst(3)), index <= 20, index >= last else {
                        wrong.add(1, ordering: .relaxed)
                        continue
                    }
                    last = index
                }
                if Self.flagKeys(host) != ["set20"] { wrong.add(1, ordering: .relaxed) }
            }
        }
        for set in sets {
            _ = host.reload(using: { .success(set) })
            Thread.sleep(forTimeInterval: 0.002)
        }
        stop.store(true, ordering: .releasing)
        group.wait()
        #expect(wrong.load(ordering: .relaxed) == 0)
        #expect(reads.load(ordering: .relaxed) > 20)
    }
}
