import Rules
import TestRandom
import Testing

@testable import Store

/// `Reducer.record`, which adds a donation instant to an event's history in one pass, against the two steps it
/// replaced (insert in order, then drop the oldest by age and by count), and the room its copy keeps.
@Suite struct DonationHistoryRecordTests {
    /// The two steps as they were: the instant inserted in order, then the oldest dropped.
    static func reference(_ instant: Instant, into recent: [Instant], now: Instant, policy: HistoryPolicy) -> [Instant] {
        var recent = recent
        let position = recent.last.map { instant < $0 } == true ? (recent.firstIndex { $0 > instant } ?? recent.count) : recent.count
        recent.insert(instant, at: position)
        let oldest = now - policy.maxAge
        var drop = 0
        while drop < recent.count, recent[drop] < oldest { drop += 1 }
        drop = max(drop, recent.count - policy.maxEntries)
        if drop > 0 { recent.removeFirst(drop) }
        return recent
    }

    @Test func recordedHistory_matchesInsertThenPrune_forRandomHistoriesAndInstants() {
        var random = SplitMix(seed: 0x5EED_0001)
        for _ in 0..<20_000 {
            let policy = HistoryPolicy(maxEntries: 1 + random.next(upTo: 6), maxAge: Milliseconds(random.next(upTo: 60)))
            let now = Instant(milliseconds: 100)
            let length = random.next(upTo: policy.maxEntries + 1)
            let recent = (0..<length).map { _ in Instant(milliseconds: Int64(40 + random.next(upTo: 70))) }.sorted()
            // Backdated, duplicated, too old and newest instants alike.
            let instant = Instant(milliseconds: Int64(30 + random.next(upTo: 80)))
            var recorded = recent
            Reducer.record(instant, into: &recorded, now: now, policy: policy)
            #expect(recorded == Self.reference(instant, into: recent, now: now, policy: policy), "\(recent) + \(instant), \(policy)")
        }
    }

    @Test func recordedHistory_atTheCap_dropsTheOldest_andKeepsTheInstantWhereverItGoes() {
        let policy = HistoryPolicy(maxEntries: 3, maxAge: 1_000)
        let now = Instant(milliseconds: 5_000)
        let full: [Instant] = [4_100, 4_200, 4_300].map { Instant(milliseconds: $0) }
        for (instant, expected) in [(4_400, [4_200, 4_300, 4_400]), (4_150, [4_150, 4_200, 4_300]), (4_050, [4_100, 4_200, 4_300])] {
            var recent = full
            Reducer.record(Instant(milliseconds: Int64(instant)), into: &recent, now: now, policy: policy)
            #expect(recent == expected.map { Instant(milliseconds: Int64($0)) })
        }
        // Older than the age bound: not kept, and neither is what aged out.
        var aged = [Instant(milliseconds: 3_000), Instant(milliseconds: 4_500)]
        Reducer.record(Instant(milliseconds: 3_500), into: &aged, now: now, policy: policy)
        #expect(aged == [Instant(milliseconds: 4_500)])
    }

    @Test func recordedHistory_atItsCap_withNoSpareRoom_sharedWithThePreviousState_isNotGivenTwiceTheRoom() {
        // A full history with no spare room (as a snapshot restores it), still held by the write's previous state
        // (as the store keeps it for the flag diff). Inserting into the shared buffer copied it into twice the
        // room, kept for as long as the user.
        var recent: [Instant] = []
        recent.reserveCapacity(1_000)
        while recent.count < recent.capacity { recent.append(Instant(milliseconds: 9_000_000 + Int64(recent.count))) }
        let policy = HistoryPolicy(maxEntries: recent.count)
        let now = Instant(milliseconds: 10_000_000)
        let previous = recent
        Reducer.record(now, into: &recent, now: now, policy: policy)
        #expect(recent.count == policy.maxEntries)
        #expect(recent.first == Instant(milliseconds: 9_000_001))
        #expect(recent.last == now)
        #expect(recent.capacity < policy.maxEntries * 3 / 2)
        #expect(previous.count == policy.maxEntries && previous.first == Instant(milliseconds: 9_000_000))
    }
}
