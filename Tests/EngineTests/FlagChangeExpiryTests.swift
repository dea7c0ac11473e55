import Rules
import Testing

@testable import Engine
@testable import Store

/// A value whose expiry has come stays stored until pruned, but no evaluation sees it. Writing it again is a
/// change for the flags that read it (found in review: compared as stored, the two states looked alike, and no
/// change was reported to the write's answer or to streams).
@Suite struct FlagChangeExpiryTests {
    static let rules = """
        {"flags": {
          "vip": {"when": {"segment": "vip"}},
          "beta": {"when": {"flag": {"key": "beta", "equals": true}}},
          "planned": {"when": {"attr": {"key": "plan", "eq": "pro"}}}
        }}
        """
    static let t0 = Instant(milliseconds: 1_773_144_000_000)

    static func changes(_ expiring: Action, _ again: Action) throws -> (found: [String], diff: [String]) {
        let set = try RuleSetLoader.load(text: rules, name: "t").get()
        let stored = try Reducer.apply(Mutation(user: "u", now: t0, actions: [expiring]), to: nil).state
        let later = Instant(milliseconds: t0.milliseconds + 20)
        let applied = try Reducer.apply(Mutation(user: "u", now: later, actions: [again]), to: stored)
        let request = RequestAttributes(userID: "u", appVersion: nil)
        let found = FlagChange.between(stored, applied.state, in: set, now: later, request: request).map(\.key)
        let diff = set.diff(of: UserStore.Applied(seq: 1, previous: stored, state: applied.state, effects: []), now: later, request: request)
        return (found, diff.changes.map(\.key))
    }

    @Test func reAddingAnExpiredSegment_changesTheFlagsThatReadIt() throws {
        let until = Instant(milliseconds: Self.t0.milliseconds + 10)
        let result = try Self.changes(.addExpiringSegment("vip", expiresAt: until), .addSegment("vip"))
        #expect(result.found == ["vip"])
        #expect(result.diff == ["vip"])
    }

    @Test func settingAnExpiredFlagAgain_changesTheFlagsThatReadIt() throws {
        let until = Instant(milliseconds: Self.t0.milliseconds + 10)
        let result = try Self.changes(.setExpiringFlag(flag: "beta", value: true, expiresAt: until), .setFlag(flag: "beta", value: true))
        #expect(result.found == ["beta"])
        #expect(result.diff == ["beta"])
    }

    @Test func settingAnExpiredAttributeAgain_changesTheFlagsThatReadIt() throws {
        let until = Instant(milliseconds: Self.t0.milliseconds + 10)
        let result = try Self.changes(
            .setExpiringAttribute(key: "plan", value: .string("pro"), expiresAt: until), .setAttribute(key: "plan", value: .string("pro")))
        #expect(result.found == ["planned"])
        #expect(result.diff == ["planned"])
    }
}
