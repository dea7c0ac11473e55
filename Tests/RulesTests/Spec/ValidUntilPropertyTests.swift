import Rules
import TestRandom
import Testing

/// `validUntil` (docs/api.md, "validUntil") over random rule sets and contexts: whole flags — booleans, decisions
/// with and without fallback, variants, weighted picks, prerequisites on earlier flags, disabled flags — over every
/// clock-dependent leaf, static leaves reading expiring values, and combinators of them.
///
/// What is pinned, by brute force over time with no write:
/// - it is the clock pushes' instant: `validUntil(input, answered:)` equals `nextChange(input)`;
/// - never late: the whole answer (value, variant, reason, index, matched) is the same at every sampled instant
///   from now until one millisecond before it, and with no instant, for days;
/// - exact where each consulted condition is a leaf: the answer differs at that instant;
/// - conservative for combinators (`all`, `any`, `none`, `atLeast`, `not` over several children) and weighted
///   picks: the instant is the earliest at which some consulted leaf flips, which may leave the answer as it was
///   (an `all` whose other child stays false). Then a consulted leaf does flip there: it is never an arbitrary
///   instant, and a client that refetches then gets the same answer with a later `validUntil`.
@Suite struct ValidUntilPropertyTests {
    static let zones = ["UTC", "Europe/Paris", "America/New_York", "Asia/Kathmandu"]

    /// A leaf spec: clock-dependent ones and static ones whose values may expire.
    static func leaf(_ random: inout SplitMix) -> String {
        let minutes = 10 + random.next(upTo: 170)
        switch random.next(upTo: 16) {
        case 0: return #"{"cooldown": {"event": "e", "for": "\#(minutes)m"}}"#
        case 1: return #"{"sinceLaunch": "\#(minutes)m"}"#
        case 2: return #"{"sinceLaunch": {"lt": "\#(minutes)m"}}"#
        case 3: return #"{"lastDonation": {"event": "d", "\#(random.next(upTo: 2) == 0 ? "within" : "notWithin")": "\#(minutes)m"}}"#
        case 4: return #"{"firstDonation": {"event": "d", "\#(random.next(upTo: 2) == 0 ? "within" : "notWithin")": "\#(minutes)m"}}"#
        case 5: return #"{"donations": {"event": "d", "gte": \#(1 + random.next(upTo: 3)), "within": "\#(minutes)m"}}"#
        case 6:
            let from = random.next(upTo: 24)
            return #"{"hourIn": [\#(from), \#((from + random.next(upTo: 12)) % 24)], "tz": "\#(zones[random.next(upTo: zones.count)])"}"#
        case 7:
            return #"{"weekday": [\#(1 + random.next(upTo: 7)), \#(1 + random.next(upTo: 7))], "tz": "\#(zones[random.next(upTo: zones.count)])"}"#
        case 8:
            let from = t0 + Int64(random.next(upTo: 2 * Int(day))) - day
            let to = from + Int64(random.next(upTo: Int(day)))
            return #"{"dateRange": {"from": "\#(ISO8601.format(from))", "to": "\#(ISO8601.format(to))"}}"#
        case 9: return #"{"cooldown": {"event": "e", "for": "\#(minutes)m", "backoff": {"counter": "n", "factor": 2, "max": "4h"}}}"#
        case 10: return #"{"history": {"event": "d", "over": "3h", "per": "hour", "stat": "activePeriods", "gte": \#(1 + random.next(upTo: 2))}}"#
        case 11: return #"{"attr": {"key": "plan", "eq": "pro"}}"#
        case 12: return #"{"flag": "beta"}"#
        case 13: return #"{"segment": "vip"}"#
        case 14: return #"{"counter": {"key": "n", "gte": 1}}"#
        default: return #"{"always": true}"#
        }
    }

    /// A leaf, or (`depth` permitting) a combinator of two or three specs.
    static func spec(_ random: inout SplitMix, depth: Int) -> String {
        guard depth > 0, random.next(upTo: 3) == 0 else { return leaf(&random) }
        let children = (0..<(2 + random.next(upTo: 2))).map { _ in spec(&random, depth: depth - 1) }.joined(separator: ", ")
        switch random.next(upTo: 5) {
        case 0: return #"{"all": [\#(children)]}"#
        case 1: return #"{"any": [\#(children)]}"#
        case 2: return #"{"none": [\#(children)]}"#
        case 3: return #"{"atLeast": {"n": 2, "of": [\#(children)]}}"#
        default: return #"{"not": \#(spec(&random, depth: depth - 1))}"#
        }
    }

    /// Four to seven flags of every shape; later ones may depend on earlier booleans.
    static func ruleSetText(_ random: inout SplitMix) -> String {
        var flags: [String] = []
        var booleans: [String] = []
        for index in 0..<(4 + random.next(upTo: 4)) {
            let key = "f\(index)"
            let enabled = random.next(upTo: 12) == 0 ? #""enabled": false, "# : ""
            let values = [#""a""#, #""b""#]
            func value(_ random: inout SplitMix) -> String { values[random.next(upTo: values.count)] }
            func when(_ random: inout SplitMix) -> String {
                if !booleans.isEmpty, random.next(upTo: 5) == 0 {
                    return #"{"prerequisite": {"flag": "\#(booleans[random.next(upTo: booleans.count)])", "equals": \#(random.next(upTo: 2) == 0)}}"#
                }
                return spec(&random, depth: 2)
            }
            let cases = (0..<(1 + random.next(upTo: 3)))
            switch random.next(upTo: 5) {
            case 0, 1:
                flags.append(#""\#(key)": {\#(enabled)"when": \#(when(&random))}"#)
                booleans.append(key)
            case 2:
                let list = cases.map { _ in #"{"when": \#(when(&random)), "value": \#(value(&random))}"# }.joined(separator: ", ")
                let fallback = random.next(upTo: 3) == 0 ? "" : #", "fallback": \#(value(&random))"#
                flags.append(#""\#(key)": {\#(enabled)"cases": [\#(list)]\#(fallback)}"#)
            case 3:
                let list = cases.map { _ in #"{"when": \#(when(&random)), "variant": "\#(["on", "off"][random.next(upTo: 2)])"}"# }
                flags.append(
                    #""\#(key)": {\#(enabled)"variants": {"on": 1, "off": 0}, "defaultVariant": "off", "cases": [\#(list.joined(separator: ", "))]}"#)
            default:
                let list = cases.map { _ in #"{"when": \#(when(&random)), "weight": \#(1 + random.next(upTo: 3)), "value": \#(value(&random))}"# }
                flags.append(#""\#(key)": {\#(enabled)"pick": "weighted", "cases": [\#(list.joined(separator: ", "))], "fallback": "z"}"#)
            }
        }
        return #"{"flags": {\#(flags.joined(separator: ", "))}}"#
    }

    static func randomUser(_ random: inout SplitMix) -> UserContext {
        func expiry(_ random: inout SplitMix) -> Instant? { random.next(upTo: 2) == 0 ? nil : t0 + Int64(random.next(upTo: Int(day))) }
        return context { user in
            user.launchedAt = t0 - Int64(random.next(upTo: 4 * Int(hour)))
            if random.next(upTo: 3) > 0 { user.timeZone = zones[random.next(upTo: zones.count)] }
            if random.next(upTo: 4) > 0 { user.events["e"] = t0 - Int64(random.next(upTo: 3 * Int(hour))) }
            user.counters["n"] = random.next(upTo: 3)
            let times = (0..<random.next(upTo: 5)).map { _ in t0 - Int64(random.next(upTo: 3 * Int(hour))) }.sorted()
            if let first = times.first, let last = times.last {
                user.donations["d"] = DonationSummary(
                    count: times.count, first: .init(at: first, appVersion: nil), last: .init(at: last, appVersion: nil), recent: times)
            }
            if random.next(upTo: 2) == 0 {
                user.attributes["plan"] = .string(["pro", "free"][random.next(upTo: 2)])
                user.expiries[.attribute, "plan"] = expiry(&random)
            }
            if random.next(upTo: 2) == 0 {
                user.flags["beta"] = random.next(upTo: 2) == 0
                user.expiries[.flag, "beta"] = expiry(&random)
            }
            if random.next(upTo: 2) == 0 {
                user.segments.insert("vip")
                user.expiries[.segment, "vip"] = expiry(&random)
            }
        }
    }

    /// The leaves of a spec. A prerequisite is a leaf, and so is every leaf of its flag's tree: its next change
    /// walks that flag's own changes (a bounded walk that may stop at one of them).
    static func leaves(_ spec: Spec) -> [Spec] {
        switch spec {
        case .all(let children), .any(let children), .none(let children), .atLeast(_, let children): return children.flatMap(leaves)
        case .not(let child), .ref(_, let child): return leaves(child)
        case .prerequisite(let flag, _): return [spec] + consulted(flag).specs.flatMap(leaves)
        default: return [spec]
        }
    }

    /// The conditions the flag's answer consults, and whether the answer flips exactly when one of them does.
    static func consulted(_ flag: Flag) -> (specs: [Spec], exact: Bool) {
        switch flag.body {
        case .boolean(let spec): return ([spec], leaves(spec).count == 1)
        case .cases(let cases, _):
            let specs = cases.map(\.when)
            return (specs, specs.allSatisfy { leaves($0).count == 1 })
        case .pick(let pick): return (pick.cases.map(\.when), false)
        case .flagd: return ([], false)
        }
    }

    @Test(arguments: [1, 2, 3, 4] as [UInt64])
    func property_answerHoldsUntilValidUntil_changesThereWhenExact_andAConsultedLeafFlipsThereOtherwise(seed: UInt64) throws {
        var random = SplitMix(seed: seed)
        var (exactChanges, conservative, conservativeUnchanged) = (0, 0, 0)
        for _ in 0..<60 {
            let text = Self.ruleSetText(&random)
            let rules = try ruleSet(text)
            for _ in 0..<15 {
                let user = Self.randomUser(&random)
                let flag = rules.declaredFlags[random.next(upTo: rules.declaredFlags.count)]
                let now = t0 + Int64(random.next(upTo: Int(day)))
                let start = input(user, now)
                let answer = flag.evaluate(start)
                let until = flag.validUntil(start, answered: answer)
                #expect(until == flag.nextChange(start), "\(flag.key) of \(text)")
                guard let until else {
                    for step in 1...24 {
                        #expect(flag.evaluate(input(user, now + Int64(step) * 3 * hour)) == answer, "\(flag.key) changed with no validUntil: \(text)")
                    }
                    continue
                }
                #expect(until > now)
                for step in 0..<30 {
                    let sample = now + (until - now) * Int64(step) / 30
                    #expect(flag.evaluate(input(user, sample)) == answer, "\(flag.key) changed before \(until): \(text)")
                }
                #expect(flag.evaluate(input(user, until - 1)) == answer, "\(flag.key) changed before \(until): \(text)")
                let changed = flag.evaluate(input(user, until)) != answer
                let (specs, exact) = Self.consulted(flag)
                if flag.enabled, exact {
                    #expect(changed, "\(flag.key) did not change at its exact validUntil \(until): \(text)")
                    exactChanges += 1
                } else if !changed {
                    let flipped = specs.flatMap(Self.leaves).contains { $0.holds(input(user, until - 1)) != $0.holds(input(user, until)) }
                    #expect(flipped, "no consulted leaf of \(flag.key) flips at \(until): \(text)")
                    conservativeUnchanged += 1
                } else {
                    conservative += 1
                }
            }
        }
        // Each class is exercised, not only the easy one.
        #expect(exactChanges > 30)
        #expect(conservative > 10)
        #expect(conservativeUnchanged > 5)
    }
}
