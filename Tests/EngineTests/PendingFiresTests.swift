import Rules
import TestRandom
import Testing

@testable import Engine

/// The pending delayed fires alone: by id and by (user, trigger), as the delay modes read them.
@Suite struct PendingFiresTests {
    private let request = RequestAttributes(userID: "u", appVersion: "1.0")

    /// What the clock does: the due fires in order, each then taken to fire.
    private func fireDue(_ fires: inout PendingFires, now: Int64) -> [PendingFires.Fire] {
        fires.popDue(now: Instant(milliseconds: now)).compactMap { fires.take($0.id) }
    }

    private func add(_ fires: inout PendingFires, user: String = "u", at due: Int64, mode: Trigger.DelayMode) -> (PendingFires.Fire?, [Int]) {
        let (fire, replaced) = fires.add(user: user, trigger: "t", due: Instant(milliseconds: due), request: request, mode: mode)
        return (fire, replaced)
    }

    /// The `each` mode kept one fire per qualifying donation without bound: a busy user and a long delay grew
    /// memory by ~300 bytes a donation (found in review). Past the bound a donation schedules nothing, counted; a
    /// fire that comes due frees its place; other users and triggers are not held back.
    @Test func eachMode_pastTheBoundPerUserAndTrigger_schedulesNothing_andCountsIt() throws {
        var fires = PendingFires()
        for index in 0..<PendingFires.maxPerOwner { #expect(add(&fires, at: Int64(index + 1), mode: .each).0 != nil) }
        #expect(add(&fires, at: 5_000, mode: .each).0 == nil)
        #expect(fires.dropped == 1)
        #expect(fires.count == PendingFires.maxPerOwner)
        #expect(add(&fires, user: "other", at: 5_000, mode: .each).0 != nil)
        #expect(fires.add(user: "u", trigger: "t2", due: Instant(milliseconds: 5_000), request: request, mode: .each).fire != nil)
        let due = fireDue(&fires, now: 1)
        #expect(due.count == 1)
        #expect(add(&fires, at: 5_001, mode: .each).0 != nil)
        #expect(add(&fires, at: 5_002, mode: .each).0 == nil)
        #expect(fires.dropped == 2)
        // A restart replaces them all, and its owner starts again from one.
        let (restarted, replaced) = add(&fires, at: 6_000, mode: .restart)
        #expect(restarted != nil)
        #expect(replaced.count == PendingFires.maxPerOwner)
        #expect(add(&fires, at: 6_001, mode: .each).0 != nil)
    }

    @Test func take_fromTheMiddle_leavesTheOthersPendingForTheirOwner() throws {
        var fires = PendingFires()
        let ids = (1...3).compactMap { add(&fires, at: Int64($0), mode: .each).0?.id }
        #expect(fires.take(ids[1])?.id == ids[1])
        #expect(fires.take(ids[1]) == nil)
        #expect(fires.count == 2)
        // `first` still sees the owner's pending fires; `restart` replaces exactly those left.
        #expect(add(&fires, at: 9, mode: .first).0 == nil)
        let (restarted, replaced) = add(&fires, at: 9, mode: .restart)
        #expect(replaced == [ids[0], ids[2]])
        #expect(fires.all.map(\.id) == [try #require(restarted).id])
    }

    @Test func takingAnOwnersLastFire_forgetsTheOwner_soFirstSchedulesAgain() throws {
        var fires = PendingFires()
        let only = try #require(add(&fires, at: 1, mode: .first).0)
        #expect(add(&fires, at: 2, mode: .first).0 == nil)
        #expect(fires.take(only.id) != nil)
        #expect(add(&fires, at: 3, mode: .first).0 != nil)
        // Another user's fire is its own: NFC and NFD spellings are two users.
        #expect(add(&fires, user: "caf\u{E9}", at: 4, mode: .first).0 != nil)
        #expect(add(&fires, user: "cafe\u{301}", at: 4, mode: .first).0 != nil)
        #expect(fires.count == 3)
    }

    /// `each` fires are indexed by owner only once a `restart` or `first` fire is asked for (a reload may change a
    /// trigger's mode): that one still sees every fire pending for its owner, whatever mode scheduled it.
    @Test func aModeChangedByAReload_seesTheFiresTheOldModeScheduled() throws {
        var fires = PendingFires()
        let eachIDs = (1...3).compactMap { add(&fires, at: Int64($0), mode: .each).0?.id }
        let other = try #require(add(&fires, user: "v", at: 4, mode: .each).0)
        #expect(fires.take(eachIDs[0]) != nil)
        #expect(add(&fires, at: 5, mode: .first).0 == nil)
        let (restarted, replaced) = add(&fires, at: 6, mode: .restart)
        #expect(replaced == Array(eachIDs.dropFirst()))
        // Indexed from now on: an `each` fire added later is replaced too, and the other user's is left alone.
        let later = try #require(add(&fires, at: 7, mode: .each).0)
        #expect(add(&fires, at: 8, mode: .restart).1 == [try #require(restarted).id, later.id])
        #expect(fires.all.map(\.user) == ["v", "u"])
        #expect(fires.take(other.id) != nil)
    }

    @Test func dueFires_comeByNow_earliestFirst_andTheOlderFirstAtOneInstant() {
        var fires = PendingFires()
        let a = add(&fires, user: "a", at: 30, mode: .each).0!.id
        let b = add(&fires, user: "b", at: 10, mode: .each).0!.id
        let c = add(&fires, user: "c", at: 30, mode: .each).0!.id
        let d = add(&fires, user: "d", at: 50, mode: .each).0!.id
        #expect(fires.nextDue() == Instant(milliseconds: 10))
        #expect(fireDue(&fires, now: 9).isEmpty)
        #expect(fireDue(&fires, now: 30).map(\.id) == [b, a, c])
        #expect(fires.count == 1)
        #expect(fires.nextDue() == Instant(milliseconds: 50))
        #expect(fireDue(&fires, now: 1_000).map(\.id) == [d])
        #expect(fires.nextDue() == nil)
    }

    /// Fires due together stay pending until each is taken in its turn: the one after a fire that is still firing
    /// can be cancelled, and is seen by `first`, meanwhile.
    @Test func dueFires_stayPendingAndCancellable_untilTheirTurn() throws {
        var fires = PendingFires()
        let a = try #require(add(&fires, user: "a", at: 10, mode: .each).0)
        let b = try #require(add(&fires, user: "b", at: 10, mode: .first).0)
        let due = fires.popDue(now: Instant(milliseconds: 10))
        #expect(due.map(\.id) == [a.id, b.id])
        #expect(fires.count == 2 && fires.fire(b.id) == b)
        #expect(fires.take(a.id) == a)
        // While the first fires: the second is still pending for `first`, and can be cancelled.
        #expect(add(&fires, user: "b", at: 20, mode: .first).0 == nil)
        #expect(fires.take(b.id) == b)
        #expect(fires.take(b.id) == nil, "taken once: the clock's turn finds it gone")
        #expect(fires.nextDue() == nil)
    }

    @Test func firesTakenBeforeTheirInstant_neverComeDue_norHoldTheNextInstant() {
        var fires = PendingFires()
        let cancelled = add(&fires, user: "a", at: 10, mode: .each).0!.id
        _ = add(&fires, user: "b", at: 20, mode: .restart)
        let (kept, replaced) = add(&fires, user: "b", at: 40, mode: .restart)
        #expect(replaced.count == 1)
        #expect(fires.take(cancelled) != nil)
        #expect(fires.nextDue() == Instant(milliseconds: 40))
        #expect(fireDue(&fires, now: 100).map(\.id) == [kept!.id])
    }

    @Test func aRestartTriggerReplacingItsFireOnEveryDonation_keepsTheDueOrderBounded() {
        var fires = PendingFires()
        for step in 0..<100_000 { _ = add(&fires, at: Int64(1_000_000 + step), mode: .restart) }
        #expect(fires.count == 1)
        // Entries left behind are dropped once they outnumber the live ones (and pass 1 024).
        #expect(fires.dueOrderSize <= 1_026)
        #expect(fireDue(&fires, now: .max).map(\.due) == [Instant(milliseconds: 1_099_999)])
        #expect(fires.dueOrderSize == 0)
    }

    /// Random adds in every mode, cancellations and clock steps, against the definition: a fire comes due once, at
    /// the first step at or after its instant, in (instant, id) order, unless taken out before.
    @Test func randomSchedules_comeDueAsTheDefinitionSays() {
        var random = SplitMix(seed: 0x5EED_F12E)
        for _ in 0..<200 {
            var fires = PendingFires()
            var model: [Int: PendingFires.Fire] = [:]
            var now: Int64 = 0
            for _ in 0..<200 {
                switch random.next(upTo: 4) {
                case 0, 1:
                    let mode: Trigger.DelayMode = [.each, .restart, .first][random.next(upTo: 3)]
                    let user = "u\(random.next(upTo: 4))"
                    let due = now + Int64(random.next(upTo: 50))
                    let (fire, replaced) = fires.add(
                        user: user, trigger: "t", due: Instant(milliseconds: due), request: request, mode: mode)
                    for id in replaced { #expect(model.removeValue(forKey: id) != nil) }
                    if let fire { model[fire.id] = fire }
                case 2:
                    if !model.isEmpty {
                        let id = model.keys.sorted()[random.next(upTo: model.count)]
                        #expect(fires.take(id) == model.removeValue(forKey: id))
                    }
                default:
                    now += Int64(random.next(upTo: 20))
                    let expected = model.values.filter { $0.due.milliseconds <= now }.sorted { ($0.due, $0.id) < ($1.due, $1.id) }
                    for fire in expected { model[fire.id] = nil }
                    #expect(fireDue(&fires, now: now) == expected)
                }
                #expect(fires.count == model.count)
                #expect(fires.nextDue() == model.values.map(\.due).min())
            }
        }
    }
}
