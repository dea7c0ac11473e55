import Rules
import TestRandom
import Testing

/// The next-change property (`NextChangeTests.property_answerIsConstantUntilTheNextChange`) over expiring values
/// and prerequisites: brute force over time agrees with the computed instant.
@Suite struct NextChangeExpiryPropertyTests {
    static let prerequisites = #"""
        "pre-cool": {"when": {"cooldown": {"event": "e", "for": "2h"}}},
        "pre-vip": {"when": {"segment": "vip"}},
        "pre-decision": {"cases": [{"when": {"attr": {"key": "plan", "eq": "pro"}}, "value": "a"},
                                   {"when": {"dateRange": {"to": "2026-03-10T18:00:00Z"}}, "value": "b"}], "fallback": "c"},
        "pre-variant": {"variants": {"on": 1, "off": 0}, "defaultVariant": "off", "cases": [{"when": {"flag": "beta"}, "variant": "on"}]}
        """#

    static func compile(_ spec: String) throws -> Spec {
        let set = try ruleSet(#"{"flags": {\#(prerequisites), "f": {"when": \#(spec)}}}"#)
        guard case .boolean(let compiled) = set.flags["f"]!.body else { throw RuleSetError([]) }
        return compiled
    }

    static let specs = [
        #"{"attr": {"key": "plan", "eq": "pro"}}"#,
        #"{"attr": {"key": "plan", "exists": true}}"#,
        #"{"flag": "beta"}"#,
        #"{"segment": "vip"}"#,
        #"{"segments": {"any": ["vip", "staff"]}}"#,
        #"{"segments": {"all": ["vip", "staff"]}}"#,
        #"{"prerequisite": {"flag": "pre-cool", "equals": true}}"#,
        #"{"prerequisite": {"flag": "pre-vip", "equals": true}}"#,
        #"{"prerequisite": {"flag": "pre-decision", "equals": "b"}}"#,
        #"{"prerequisite": {"flag": "pre-decision", "equals": "c"}}"#,
        #"{"prerequisite": {"flag": "pre-variant", "variant": "on"}}"#,
        #"{"all": [{"segment": "vip"}, {"cooldown": {"event": "e", "for": "2h"}}]}"#,
        #"{"any": [{"prerequisite": {"flag": "pre-vip", "equals": false}}, {"hourIn": [9, 17]}]}"#
    ]

    static func randomUser(_ generator: inout SplitMix) -> UserContext {
        func expiry(_ generator: inout SplitMix) -> Instant? {
            generator.next(upTo: 3) == 0 ? nil : t0 + Int64(generator.next(upTo: Int(day)))
        }
        return context { user in
            if generator.next(upTo: 4) > 0 { user.events["e"] = t0 - Int64(generator.next(upTo: 3 * Int(hour))) }
            if generator.next(upTo: 4) > 0 {
                user.attributes["plan"] = .string(["pro", "free"][generator.next(upTo: 2)])
                user.expiries[.attribute, "plan"] = expiry(&generator)
            }
            if generator.next(upTo: 4) > 0 {
                user.flags["beta"] = generator.next(upTo: 3) > 0
                user.expiries[.flag, "beta"] = expiry(&generator)
            }
            for segment in ["vip", "staff"] where generator.next(upTo: 3) > 0 {
                user.segments.insert(segment)
                user.expiries[.segment, segment] = expiry(&generator)
            }
        }
    }

    @Test func property_answerIsConstantUntilTheNextChange_withExpiriesAndPrerequisites() throws {
        var generator = SplitMix(seed: 7)
        let compiled = try Self.specs.map(Self.compile)
        var checked = 0
        for _ in 0..<1000 {
            let user = Self.randomUser(&generator)
            let spec = compiled[generator.next(upTo: compiled.count)]
            let now = t0 + Int64(generator.next(upTo: Int(day)))
            let start = input(user, now)
            let initial = spec.holds(start)
            guard let change = spec.nextChange(start) else {
                for step in 1...20 { #expect(spec.holds(input(user, now + Int64(step) * 3 * hour)) == initial, "\(spec) changed") }
                continue
            }
            #expect(change > now)
            for step in 0..<50 {
                let sample = now + (change - now) * Int64(step) / 50
                #expect(spec.holds(input(user, sample)) == initial, "changed before \(change)")
            }
            #expect(spec.holds(input(user, change - 1)) == initial)
            switch spec {
            case .all(let children), .any(let children):
                let flipped = children.contains { $0.nextChange(start) == change && $0.holds(input(user, change)) != $0.holds(start) }
                #expect(flipped)
            default:
                #expect(spec.holds(input(user, change)) != initial, "\(spec) did not flip at \(change)")
            }
            checked += 1
        }
        #expect(checked > 200)
    }
}
