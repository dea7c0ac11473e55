import Rules
import Store
import TestRandom
import Testing

@testable import Engine

/// A write made with one app version is diffed again for the other versions streams listen with. Flags that read
/// no version are taken from the write's own changes; these compare that with evaluating every flag again, over
/// random writes and versions, on rules where versions are read directly, through `$appVersion`, in decision
/// cases and through prerequisites.
@Suite struct FlagChangeVersionTests {
    static let rules = """
        {"flags": {
          "new-ui": {"when": {"appVersion": {"gte": "2.0"}}},
          "again": {"when": {"lastDonationVersion": {"event": "appStarted", "ne": "$appVersion"}}},
          "first-old": {"when": {"firstDonationVersion": {"event": "appStarted", "lt": "2.0"}}},
          "busy": {"when": {"donations": {"event": "appStarted", "gte": 3}}},
          "counted": {"when": {"counter": {"key": "k", "gte": 2}}},
          "tier": {"cases": [{"when": {"appVersion": {"lt": "1.5"}}, "value": "legacy"},
                             {"when": {"counter": {"key": "k", "gte": 1}}, "value": "active"}], "fallback": "none"},
          "gated": {"when": {"all": [{"prerequisite": {"flag": "new-ui", "equals": true}}, {"counter": {"key": "k", "gte": 1}}]}},
          "plain": {"when": {"prerequisite": {"flag": "busy", "equals": true}}},
          "fd": {"state": "ENABLED", "defaultVariant": "off", "variants": {"on": true, "off": false},
                 "targeting": {"if": [{">=": [{"var": "k"}, 1]}, "on", "off"]}}
        }}
        """

    @Test func readers_areTheFlagsThatReadTheRequestsVersion() throws {
        let set = try RuleSetLoader.load(text: Self.rules, name: "t").get()
        let readers = set.declaredFlags.filter { set.readsAppVersion($0) }.map(\.key)
        #expect(readers == ["new-ui", "again", "tier", "gated"])
    }

    @Test(arguments: [UInt64(1), 2, 3, 4])
    func otherVersionsChanges_equalEvaluatingEveryFlagAgain(seed: UInt64) throws {
        let set = try RuleSetLoader.load(text: Self.rules, name: "t").get()
        var random = SplitMix(seed: seed)
        let versions: [String?] = [nil, "1.0", "1.4.9", "2.0", "2.0.0", "10", "not-a-version"]
        var state: UserContext?
        var now = Instant(milliseconds: 1_773_144_000_000)
        for _ in 0..<300 {
            now = Instant(milliseconds: now.milliseconds + Int64(random.next(upTo: 90_000_000)))
            let written = versions[random.next(upTo: versions.count)]
            let action: Action =
                random.next(upTo: 3) == 0
                ? .increment(counter: "k", by: random.next(upTo: 3) - 1) : .donate(event: "appStarted", at: now, appVersion: written)
            let previous = state
            state = try Reducer.apply(Mutation(user: "u", now: now, actions: [action]), to: previous).state
            let affected = set.flagsAffected(from: previous, to: state)
            let changes = FlagChange.between(previous, state, user: "u", in: set, now: now, appVersion: written, affected: affected)
            for version in versions where version != written {
                let reused = FlagChange.between(
                    previous, state, user: "u", in: set, now: now, appVersion: version, affected: affected, written: changes)
                let full = FlagChange.between(previous, state, user: "u", in: set, now: now, appVersion: version)
                #expect(reused.map(\.key) == full.map(\.key))
                #expect(reused.map(\.current.value) == full.map(\.current.value))
                #expect(reused.map(\.current.variant) == full.map(\.current.variant))
                #expect(reused.map(\.previous.value) == full.map(\.previous.value))
            }
        }
    }
}
