import Rules
import TestRandom
import Testing

/// `shouldFire` tests the throttle before or after the spec depending on which is cheaper; either way it answers
/// as its definition: the spec holds now, in edge mode it did not hold before, and the last fire's period is over.
@Suite struct TriggerDecisionTests {
    static let set = try! ruleSet(
        #"""
        {"flags": {}, "triggers": {
          "plain": {"on": ["e"], "when": {"counter": {"key": "k", "gte": 1}}, "throttle": "1 month"},
          "edge": {"on": ["e"], "when": {"counter": {"key": "k", "gte": 2}}, "throttle": "1 day", "edge": true},
          "free": {"on": ["e"], "when": {"counter": {"key": "k", "gte": 1}}}
        }}
        """#)

    static func randomContext(_ random: inout SplitMix) -> UserContext {
        var context = UserContext()
        if random.next(upTo: 4) > 0 { context.counters["k"] = random.next(upTo: 3) }
        context.timeZone = [nil, "UTC", "Europe/Paris", "Asia/Tokyo"][random.next(upTo: 4)]
        for key in ["plain", "edge", "free"] where random.next(upTo: 2) == 0 {
            context.triggerFires[key] = t0 - Int64(random.next(upTo: 4)) * 20 * 24 * hour
        }
        return context
    }

    @Test(arguments: [1, 2]) func shouldFire_answersAsItsDefinition_inEveryZone(seed: UInt64) {
        var random = SplitMix(seed: seed)
        for _ in 0..<300 {
            let current = Self.randomContext(&random)
            let previous = random.next(upTo: 3) == 0 ? nil : Self.randomContext(&random)
            let request = RequestAttributes(userID: "u1", appVersion: nil)
            for key in Self.set.triggerKeys {
                let trigger = Self.set.triggers[key]!
                let holds = trigger.when.holds(EvaluationInput(context: current, now: t0, request: request))
                let heldBefore = previous.map { trigger.when.holds(EvaluationInput(context: $0, now: t0, request: request)) } ?? false
                let expected = holds && !(trigger.edge && heldBefore) && !trigger.isThrottled(current, now: t0)
                #expect(trigger.shouldFire(previous: previous, current: current, now: t0, request: request) == expected, "\(key)")
            }
        }
    }
}
