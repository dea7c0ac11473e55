import Rules
import Store
import Testing

@testable import Engine

/// The history visitors alone, fed records by hand: what a page keeps, where the next one starts, what an erase ends.
@Suite struct UserHistoryTests {
    static let t0 = Instant(milliseconds: 1_773_144_000_000)

    func record(_ seq: UInt64, _ action: Action = .increment(counter: "n", by: 1)) -> UserLog.Record {
        UserLog.Record(seq: seq, mutation: Mutation(user: "u", now: Self.t0 + Int64(seq), actions: [action]))
    }

    func feed<Visitor: UserLogVisitor>(_ visitor: inout Visitor, _ records: [UserLog.Record]) {
        visitor.start(baseSeq: 0, base: nil)
        for record in records { visitor.visit(record, before: nil, after: UserContext()) }
    }

    /// A user with many records: the page is the newest `limit`, and what is held stays bounded while they stream by.
    @Test func page_keepsTheNewestLimit_andHoldsABoundedNumber() {
        var collector = UserHistory.PageCollector(limit: 3, before: nil)
        collector.start(baseSeq: 0, base: nil)
        var most = 0
        for seq in 1...10_000 as ClosedRange<UInt64> {
            collector.visit(record(seq), before: nil, after: nil)
            most = max(most, collector.held)
        }
        #expect(collector.newestFirst.map(\.record.seq) == [10_000, 9_999, 9_998])
        #expect(collector.hasOlder)
        #expect(most < 3 + 64)
    }

    @Test(arguments: [
        (UInt64?.none, 5, [10, 9, 8, 7, 6] as [UInt64], true), (6, 5, [5, 4, 3, 2, 1], false), (3, 5, [2, 1], false), (1, 5, [], false),
        (11, 10, [10, 9, 8, 7, 6, 5, 4, 3, 2, 1], false), (8, 1, [7], true)
    ])
    func page_before(before: UInt64?, limit: Int, seqs: [UInt64], hasOlder: Bool) {
        var collector = UserHistory.PageCollector(limit: limit, before: before)
        feed(&collector, (1...10).map { record($0) })
        #expect(collector.newestFirst.map(\.record.seq) == seqs)
        #expect(collector.hasOlder == hasOlder)
    }

    /// An erase ends a story: only what follows it is the user's, whatever page is asked for.
    @Test func page_afterAnErase_listsOnlyTheNewStory() {
        var collector = UserHistory.PageCollector(limit: 10, before: nil)
        feed(&collector, [record(1), record(2), record(3, .erase), record(4)])
        #expect(collector.newestFirst.map(\.record.seq) == [4])
        #expect(!collector.hasOlder && collector.erased)
        var older = UserHistory.PageCollector(limit: 10, before: 4)
        feed(&older, [record(1), record(2), record(3, .erase), record(4)])
        #expect(older.newestFirst.isEmpty)
    }

    /// A read that restarts (compaction removed a file under it) forgets what it saw.
    @Test func page_restart_forgetsTheFirstAttempt() {
        var collector = UserHistory.PageCollector(limit: 10, before: nil)
        feed(&collector, [record(1), record(2)])
        feed(&collector, [record(2)])
        #expect(collector.newestFirst.map(\.record.seq) == [2])
    }

    @Test func record_foundThenErased_isNotTheUsers() {
        var kept = UserHistory.RecordCollector(seq: 2)
        feed(&kept, [record(1), record(2), record(3)])
        #expect(kept.found?.record.seq == 2 && !kept.erasedAfter && kept.replayed == 2)
        var erased = UserHistory.RecordCollector(seq: 2)
        feed(&erased, [record(1), record(2), record(3, .erase), record(4)])
        #expect(erased.erasedAfter)
        var eraseItself = UserHistory.RecordCollector(seq: 3)
        feed(&eraseItself, [record(1), record(2), record(3, .erase)])
        #expect(eraseItself.found == nil)
    }
}
