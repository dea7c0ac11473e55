import Rules
import Testing

@testable import Engine

/// The pending delayed fires alone: by id and by (user, trigger), as the delay modes read them.
@Suite struct PendingFiresTests {
    private let request = RequestAttributes(userID: "u", appVersion: "1.0")

    private func add(_ fires: inout PendingFires, user: String = "u", at due: Int64, mode: Trigger.DelayMode) -> (PendingFires.Fire?, [Int]) {
        let (fire, replaced) = fires.add(user: user, trigger: "t", due: Instant(milliseconds: due), request: request, mode: mode)
        return (fire, replaced)
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
}
