import TestRandom
import Testing

@testable import Rules
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
            // Split between the shared run and the tail at a random place, as a history stands after any writes.
            var recorded = DonationHistory(Array(recent.prefix(random.next(upTo: length + 1))))
            for instant in recent.dropFirst(recorded.count) { recorded.append(instant) }
            Reducer.record(instant, into: &recorded, now: now, policy: policy)
            #expect(Array(recorded) == Self.reference(instant, into: recent, now: now, policy: policy), "\(recent) + \(instant), \(policy)")
        }
    }

    @Test func recordedHistory_atTheCap_dropsTheOldest_andKeepsTheInstantWhereverItGoes() {
        let policy = HistoryPolicy(maxEntries: 3, maxAge: 1_000)
        let now = Instant(milliseconds: 5_000)
        let full: [Instant] = [4_100, 4_200, 4_300].map { Instant(milliseconds: $0) }
        for (instant, expected) in [(4_400, [4_200, 4_300, 4_400]), (4_150, [4_150, 4_200, 4_300]), (4_050, [4_100, 4_200, 4_300])] {
            var recent = DonationHistory(full)
            Reducer.record(Instant(milliseconds: Int64(instant)), into: &recent, now: now, policy: policy)
            #expect(Array(recent) == expected.map { Instant(milliseconds: Int64($0)) })
        }
        // Older than the age bound: not kept, and neither is what aged out.
        var aged: DonationHistory = [Instant(milliseconds: 3_000), Instant(milliseconds: 4_500)]
        Reducer.record(Instant(milliseconds: 3_500), into: &aged, now: now, policy: policy)
        #expect(aged == [Instant(milliseconds: 4_500)])
    }

    @Test func recordedHistory_atItsCap_sharedWithThePreviousState_keepsTheSharedRun_andBoundedRoom() {
        // A full history as a snapshot restores it (one run, no spare room), held by each write's previous state
        // as the store keeps it for the flag diff. As one array, every donation copied all thousand instants.
        let policy = HistoryPolicy(maxEntries: 1_000)
        var recent = DonationHistory((0..<Int64(policy.maxEntries)).map { Instant(milliseconds: 9_000_000 + $0) })
        var copiedWhole = 0
        for step in 1...Int64(3 * policy.maxEntries) {
            let previous = recent
            let now = Instant(milliseconds: 10_000_000 + step)
            Reducer.record(now, into: &recent, now: now, policy: policy)
            if !recent.sharesRun(with: previous) { copiedWhole += 1 }
            #expect(recent.count == policy.maxEntries)
            #expect(recent.first == Instant(milliseconds: 9_000_000 + step) || step >= Int64(policy.maxEntries))
            #expect(recent.last == now)
            #expect(recent.storedCapacity <= policy.maxEntries + 2 * DonationHistory.tailLimit)
            #expect(previous.count == policy.maxEntries && previous.last == now - 1 || step == 1)
        }
        // The run is copied once per `tailLimit` donations, when the tail joins it.
        #expect(copiedWhole <= 3 * policy.maxEntries / DonationHistory.tailLimit + 1)
    }
}
