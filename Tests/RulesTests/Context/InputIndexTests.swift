import Rules
import TestRandom
import Testing

/// The write path's precomputed index (`flagsAffected(from:to:)`) against its definition, the string sets of
/// `flagsAffected(by: UserContext.changedInputs(from:to:))`, on random users and random writes.
///
/// One difference is intended: `ContextInput` compares its keys as `String`s, so the definition lets a change to
/// the NFD spelling of a key reach the readers of its NFC spelling too; the index compares bytes, as the context
/// does, and leaves them out. Evaluating those readers changed nothing (they read the other key), so the flag
/// changes a write reports are the same. The random keys thus have no canonically equivalent pair, and the pair has
/// its own test.
@Suite struct InputIndexTests {
    /// Keys shared by the rules and the contexts: one non-ASCII, one no flag reads.
    static let keys = ["a", "b", "caf\u{E9}", "unread"]
    static let nfd = "cafe\u{301}"

    /// More than 64 flags, so the bit sets span words; every kind of input, flags with two inputs, flags with no
    /// input, and flagd flags (inputs unknown: reached by any change).
    static let rules = makeRules(reading: Array(keys.dropLast()), references: true)

    /// Context values on the right-hand side: the flag reads both keys, so a write to either reaches it.
    static let referenceLeaves = [
        #"{"counter": {"key": "a", "gte": {"$counter": "b"}}}"#, #"{"attr": {"key": "b", "lt": {"$attr": "a"}}}"#,
        #"{"attr": {"key": "caf\u00e9", "eq": {"$counter": "a"}, "tolerance": 1}}"#, #"{"counter": {"key": "b", "ne": {"$attr": "caf\u00e9"}}}"#
    ]

    /// The parts of a donation summary (`DonationPart`): count, first and last instants and versions, recent
    /// instants through a window and through a history statistic.
    static let donationPartLeaves = [
        #"{"donations": {"event": "a", "gte": 2}}"#, #"{"donations": {"event": "b", "gte": 1, "within": "1d"}}"#,
        #"{"firstDonation": {"event": "a", "within": "1h"}}"#, #"{"lastDonation": {"event": "b", "notWithin": "1h"}}"#,
        #"{"firstDonationVersion": {"event": "b", "lt": "2.0"}}"#, #"{"lastDonationVersion": {"event": "a", "ne": "$appVersion"}}"#,
        #"{"history": {"event": "caf\u00e9", "over": "2d", "per": "day", "stat": "activePeriods", "gte": 2}}"#
    ]

    static func makeRules(reading readKeys: [String], references: Bool = false) -> RuleSet {
        var leaves: [String] = []
        for key in readKeys {
            leaves += [
                #"{"counter": {"key": "\#(key)", "gte": 1}}"#, #"{"eventExists": "\#(key)"}"#, #"{"flag": "\#(key)"}"#,
                #"{"attr": {"key": "\#(key)", "eq": 1}}"#, #"{"donations": {"event": "\#(key)", "gte": 1}}"#
            ]
        }
        leaves += [#"{"segment": "vip"}"#, #"{"sinceLaunch": "1d"}"#, #"{"hourIn": [9, 17]}"#, #"{"always": true}"#]
        var flags: [String] = []
        for (index, leaf) in leaves.enumerated() {
            flags.append(#""f\#(index)": {"when": \#(leaf)}"#)
            flags.append(#""g\#(index)": {"when": {"all": [\#(leaf), \#(leaves[(index * 7 + 3) % leaves.count])]}}"#)
            flags.append(#""h\#(index)": {"cases": [{"when": \#(leaf), "value": 1}], "fallback": 0}"#)
            flags.append(#""k\#(index)": {"when": {"not": \#(leaf)}}"#)
        }
        // Appended after the others (their partners taken from the first leaves), so the flags above keep their names.
        for (index, leaf) in (references ? referenceLeaves : []).enumerated() {
            flags.append(#""x\#(index)": {"when": \#(leaf)}"#)
            flags.append(#""y\#(index)": {"when": {"all": [\#(leaf), \#(leaves[index])]}}"#)
        }
        // Each part of a donation summary, read alone, beside another leaf, and through a prerequisite.
        for (index, leaf) in (references ? donationPartLeaves : []).enumerated() {
            flags.append(#""z\#(index)": {"when": \#(leaf)}"#)
            flags.append(#""w\#(index)": {"when": {"all": [\#(leaf), \#(leaves[index])]}}"#)
            flags.append(#""v\#(index)": {"when": {"prerequisite": {"flag": "z\#(index)", "equals": false}}}"#)
        }
        for index in 0..<2 {
            flags.append(
                #""d\#(index)": {"state": "ENABLED", "defaultVariant": "off", "variants": {"on": true, "off": false}, "#
                    + #""targeting": {"if": [{"==": [{"var": "a"}, 1]}, "on", "off"]}}"#)
        }
        // Dependent flags: a prerequisite's inputs are its dependents' (chains of two, a decision by value, a
        // flagd prerequisite whose unknown inputs make its dependent's unknown).
        for index in stride(from: 0, to: leaves.count, by: 3) {
            flags.append(#""p\#(index)": {"when": {"prerequisite": {"flag": "g\#(index)", "equals": true}}}"#)
            flags.append(#""q\#(index)": {"when": {"any": [{"segment": "beta"}, {"prerequisite": {"flag": "p\#(index)", "equals": false}}]}}"#)
            flags.append(#""r\#(index)": {"when": {"prerequisite": {"flag": "h\#(index)", "equals": 1}}}"#)
        }
        flags.append(#""pd": {"when": {"prerequisite": {"flag": "d0", "variant": "on"}}}"#)
        // Display flags: two in an ordered group, one in the global group only, and two flags reading display
        // state through spec nodes. A display write reaches its flag, its groups' members and those readers.
        let display = #"{"maxCount": 2, "group": "grp"}"#
        flags.append(#""tipA": {"when": {"always": true}, "display": \#(display)}"#)
        flags.append(#""tipB": {"when": {"segment": "vip"}, "display": \#(display)}"#)
        flags.append(#""tipG": {"when": {"always": true}, "display": {}}"#)
        flags.append(#""readsA": {"when": {"display": {"flag": "tipA", "shownCount": {"gte": 1}}}}"#)
        flags.append(#""readsG": {"when": {"display": {"flag": "tipG", "shownWithin": "1d"}}}"#)
        let groups = #""groups": {"grp": {"frequency": "daily", "order": "ordered"}, "*": {"frequency": "1h"}}"#
        return try! ruleSet(#"{\#(groups), "flags": {\#(flags.joined(separator: ", "))}}"#)
    }

    static let displayKeys = ["tipA", "tipB", "tipG", "unread"]

    static func randomContext(_ random: inout SplitMix) -> UserContext? {
        if random.next(upTo: 8) == 0 { return nil }
        var context = UserContext()
        for key in keys {
            if random.next(upTo: 2) == 0 { context.counters[key] = random.next(upTo: 3) }
            if random.next(upTo: 2) == 0 { context.events[key] = t0 + Int64(random.next(upTo: 3)) }
            if random.next(upTo: 2) == 0 { context.flags[key] = random.next(upTo: 2) == 0 }
            if random.next(upTo: 2) == 0 { context.attributes[key] = .int(random.next(upTo: 3)) }
            if random.next(upTo: 2) == 0 { context.donations[key] = randomSummary(&random) }
        }
        if random.next(upTo: 2) == 0 { context.segments.insert(["vip", "beta"][random.next(upTo: 2)]) }
        if random.next(upTo: 2) == 0 { context.launchedAt = t0 + Int64(random.next(upTo: 2)) }
        if random.next(upTo: 2) == 0 { context.timeZone = ["Europe/Paris", "Asia/Tokyo"][random.next(upTo: 2)] }
        if random.next(upTo: 2) == 0 { context.triggerFires["t"] = t0 }
        for key in displayKeys where random.next(upTo: 3) == 0 {
            context.display[key] = DisplayState(shownCount: random.next(upTo: 3), lastShown: t0 - Int64(random.next(upTo: 2)) * hour)
        }
        return context
    }

    static let versions: [String?] = ["1.0", "2.0", nil]

    static func randomMark(_ random: inout SplitMix) -> DonationSummary.Mark? {
        random.next(upTo: 4) == 0
            ? nil : DonationSummary.Mark(at: t0 - Int64(random.next(upTo: 3)) * hour, appVersion: versions[random.next(upTo: 3)])
    }

    static func randomSummary(_ random: inout SplitMix) -> DonationSummary {
        let recent = (0..<random.next(upTo: 3)).map { t0 - Int64($0) * 25 * hour }.reversed()
        return DonationSummary(count: random.next(upTo: 3), first: randomMark(&random), last: randomMark(&random), recent: Array(recent))
    }

    /// Mostly one donation more (from the last version, or another), sometimes one part of the summary alone.
    static func randomDonation(_ summary: DonationSummary?, _ random: inout SplitMix) -> DonationSummary {
        var summary = summary ?? DonationSummary()
        switch random.next(upTo: 6) {
        case 0: summary.count += 1
        case 1: summary.first = randomMark(&random)
        case 2: summary.last = randomMark(&random)
        case 3: summary.recent.append(t0)
        default:
            let version = random.next(upTo: 2) == 0 ? summary.last?.appVersion : versions[random.next(upTo: 3)]
            summary.count += 1
            summary.first = summary.first ?? DonationSummary.Mark(at: t0, appVersion: version)
            summary.last = DonationSummary.Mark(at: t0 + Int64(random.next(upTo: 2)), appVersion: version)
            summary.recent.append(t0)
        }
        return summary
    }

    /// A write changes a few things of a user (often nothing a flag reads, sometimes nothing at all).
    static func randomWrite(_ context: UserContext?, _ random: inout SplitMix) -> UserContext? {
        if random.next(upTo: 10) == 0 { return randomContext(&random) }
        var after = context ?? UserContext()
        for _ in 0..<random.next(upTo: 3) {
            let key = keys[random.next(upTo: keys.count)]
            switch random.next(upTo: 12) {
            case 0: after.counters[key] = after.counters[key] == nil ? 1 : nil
            case 1: after.events[key] = t0 + 9
            case 2: after.flags[key] = !(after.flags[key] ?? false)
            case 3: after.attributes[key] = .string("x")
            case 4: after.donations[key] = randomDonation(after.donations[key], &random)
            case 5: after.segments.insert("vip")
            case 6: after.launchedAt = t0 + 5
            case 7: after.timeZone = "UTC"
            case 8: after.triggerFires[key] = t0 + 1
            case 9, 10:
                after.display[Self.displayKeys[random.next(upTo: Self.displayKeys.count)], default: DisplayState()]
                    .record(.shown, at: t0, maxCount: 2, invalidates: false)
            default: break
            }
        }
        return after
    }

    @Test(arguments: [1, 2, 3, 4]) func flagsAffected_fromIndex_equalsTheStringSetDefinition(seed: UInt64) {
        var random = SplitMix(seed: seed)
        let rules = Self.rules
        #expect(rules.flagKeys.count > 64)
        for _ in 0..<500 {
            let before = Self.randomContext(&random)
            let after = Self.randomWrite(before, &random)
            let expected = rules.flagsAffected(by: UserContext.changedInputs(from: before, to: after))
            #expect(rules.flagsAffected(from: before, to: after).map(\.key) == expected)
        }
    }

    /// Soundness by brute force: every flag whose answer differs between the two states is among those the
    /// index names, prerequisite chains included.
    @Test(arguments: [5, 6]) func flagsAffected_includesEveryFlagWhoseAnswerChanged(seed: UInt64) {
        var random = SplitMix(seed: seed)
        let rules = Self.rules
        // Right-hand side references (`$counter`, `$attr`) included: a key missing from a flag's inputs would
        // leave its flag out here.
        for _ in 0..<400 {
            let before = Self.randomContext(&random)
            let after = Self.randomWrite(before, &random)
            let reached = Set(rules.flagsAffected(from: before, to: after).map(\.key))
            for key in rules.flagKeys {
                for version in Self.versions {
                    let old = rules.evaluate(key, input(before ?? UserContext(), appVersion: version)).value
                    let new = rules.evaluate(key, input(after ?? UserContext(), appVersion: version)).value
                    if old != new { #expect(reached.contains(key), "\(key) changed for \(version ?? "no version") but was not reached") }
                }
            }
        }
    }

    /// A display write reaches exactly its flag, the members of the flag's group, every member of the global group
    /// and the spec nodes that read it.
    @Test(arguments: [
        ("tipA", ["tipA", "tipB", "tipG", "readsA"]), ("tipB", ["tipA", "tipB", "tipG"]), ("tipG", ["tipA", "tipB", "tipG", "readsG"]),
        ("unread", [])
    ])
    func flagsAffected_byADisplayWrite_isItsFlagGroupsAndReaders(key: String, reached: [String]) {
        let before = UserContext()
        var after = before
        after.display[key] = DisplayState(shownCount: 1, firstShown: t0, lastShown: t0)
        // The flagd flags and the flag depending on one (inputs unknown) are reached by any change.
        #expect(Self.rules.flagsAffected(from: before, to: after).map(\.key) == ["d0", "d1", "pd"] + reached)
        #expect(Self.rules.flagsAffected(by: UserContext.changedInputs(from: before, to: after)) == ["d0", "d1", "pd"] + reached)
    }

    @Test func flagsAffected_byADisplayWrite_withoutAGlobalGroup_staysInItsGroup() throws {
        let rules = try ruleSet(
            #"{"groups": {"g": {"frequency": "daily"}}, "flags": {"a": {"when": {"always": true}, "display": {"group": "g"}}, "#
                + #""b": {"when": {"always": true}, "display": {"group": "g"}}, "c": {"when": {"always": true}, "display": {}}}}"#)
        var after = UserContext()
        after.display["a"] = DisplayState(shownCount: 1, lastShown: t0)
        #expect(rules.flagsAffected(from: UserContext(), to: after).map(\.key) == ["a", "b"])
        var other = UserContext()
        other.display["c"] = DisplayState(shownCount: 1, lastShown: t0)
        #expect(rules.flagsAffected(from: UserContext(), to: other).map(\.key) == ["c"])
    }

    /// A repeat donation from the version last donated from changes the count, the last instant and the recent
    /// instants: the readers of the first donation and of the last version are not re-evaluated. A new version
    /// reaches the last version's readers; a first donation reaches every reader.
    @Test func repeatDonation_reachesOnlyTheReadersOfThePartsItChanged() throws {
        let rules = try ruleSet(
            #"{"flags": {"count": {"when": {"donations": {"event": "e", "gte": 2}}}, "#
                + #""window": {"when": {"donations": {"event": "e", "gte": 2, "within": "1d"}}}, "#
                + #""first": {"when": {"firstDonation": {"event": "e", "within": "3d"}}}, "#
                + #""firstVersion": {"when": {"firstDonationVersion": {"event": "e", "lt": "2.0"}}}, "#
                + #""last": {"when": {"lastDonation": {"event": "e", "notWithin": "1h"}}}, "#
                + #""lastVersion": {"when": {"lastDonationVersion": {"event": "e", "ne": "$appVersion"}}}, "#
                + #""history": {"when": {"history": {"event": "e", "over": "7d", "per": "day", "stat": "activePeriods", "gte": 2}}}, "#
                + #""tour": {"when": {"prerequisite": {"flag": "first", "equals": true}}}, "#
                + #""other": {"when": {"donations": {"event": "f", "gte": 1}}}}}"#)
        let mark = DonationSummary.Mark(at: t0, appVersion: "1.0")
        var before = UserContext()
        before.donations["e"] = DonationSummary(count: 1, first: mark, last: mark, recent: [t0])
        var again = before
        again.donations["e"] = DonationSummary(count: 2, first: mark, last: DonationSummary.Mark(at: t0 + 1, appVersion: "1.0"), recent: [t0, t0 + 1])
        #expect(rules.flagsAffected(from: before, to: again).map(\.key) == ["count", "window", "last", "history"])
        var upgraded = again
        upgraded.donations["e"]?.last?.appVersion = "2.0"
        #expect(rules.flagsAffected(from: before, to: upgraded).map(\.key) == ["count", "window", "last", "lastVersion", "history"])
        #expect(rules.flagsAffected(from: UserContext(), to: before).map(\.key) == Array(rules.flagKeys.dropLast()))
        for (old, new) in [(before, again), (before, upgraded), (UserContext(), before)] {
            #expect(rules.flagsAffected(by: UserContext.changedInputs(from: old, to: new)) == rules.flagsAffected(from: old, to: new).map(\.key))
        }
    }

    /// Every kind of leaf reading a donation summary, each also read through a prerequisite, past the 64th flag.
    static let partLeaves = [
        #"{"donations": {"event": "e", "gte": 2}}"#, #"{"donations": {"event": "e", "lt": 1}}"#,
        #"{"donations": {"event": "e", "gte": 1, "within": "1h"}}"#, #"{"donations": {"event": "e", "eq": 0, "within": "2h"}}"#,
        #"{"firstDonation": {"event": "e", "within": "1h"}}"#, #"{"firstDonation": {"event": "e", "notWithin": "1h"}}"#,
        #"{"lastDonation": {"event": "e", "within": "1h"}}"#, #"{"lastDonation": {"event": "e", "notWithin": "1h"}}"#,
        #"{"firstDonationVersion": {"event": "e", "lt": "2.0"}}"#, #"{"firstDonationVersion": {"event": "e", "ne": "$appVersion"}}"#,
        #"{"firstDonationVersion": {"event": "e", "eq": "$appVersion"}}"#, #"{"lastDonationVersion": {"event": "e", "gte": "2"}}"#,
        #"{"lastDonationVersion": {"event": "e", "ne": "$appVersion"}}"#, #"{"lastDonationVersion": {"event": "e", "eq": "$appVersion"}}"#,
        #"{"history": {"event": "e", "over": "3h", "per": "hour", "stat": "activePeriods", "gte": 2}}"#,
        #"{"history": {"event": "e", "over": "3h", "per": "hour", "stat": "max", "gte": 2}}"#
    ]

    static let partRules: RuleSet = {
        var flags = (0..<70).map { #""pad\#($0)": {"when": {"counter": {"key": "x\#($0)", "gte": 1}}}"# }
        for (index, leaf) in partLeaves.enumerated() {
            flags.append(#""l\#(index)": {"when": \#(leaf)}"#)
            flags.append(#""n\#(index)": {"when": {"prerequisite": {"flag": "l\#(index)", "equals": true}}}"#)
        }
        return try! ruleSet(#"{"flags": {\#(flags.joined(separator: ", "))}}"#)
    }()

    static let partVersions: [String?] = ["1.0", "2.0", "2", nil]

    static func partMark(_ random: inout SplitMix) -> DonationSummary.Mark? {
        random.next(upTo: 4) == 0
            ? nil : DonationSummary.Mark(at: t0 - Int64(random.next(upTo: 4)) * hour, appVersion: partVersions[random.next(upTo: 4)])
    }

    static func partSummary(_ random: inout SplitMix) -> DonationSummary? {
        if random.next(upTo: 5) == 0 { return nil }
        let recent = (0..<random.next(upTo: 4)).map { _ in t0 - Int64(random.next(upTo: 5)) * hour / 2 }
        return DonationSummary(count: random.next(upTo: 3), first: partMark(&random), last: partMark(&random), recent: recent.sorted())
    }

    /// One part changed alone (a mark's instant or version alone too), or the summary replaced, removed or emptied.
    static func changingOnePart(_ summary: DonationSummary?, _ random: inout SplitMix) -> DonationSummary? {
        guard var summary else { return partSummary(&random) }
        switch random.next(upTo: 8) {
        case 0: summary.count = random.next(upTo: 3)
        case 1: summary.first = partMark(&random)
        case 2: summary.first?.appVersion = partVersions[random.next(upTo: 4)]
        case 3: summary.first?.at = t0 - Int64(random.next(upTo: 4)) * hour
        case 4: summary.last = partMark(&random)
        case 5: summary.last?.appVersion = partVersions[random.next(upTo: 4)]
        case 6: summary.recent = partSummary(&random)?.recent ?? []
        default: return random.next(upTo: 2) == 0 ? nil : DonationSummary()
        }
        return summary
    }

    /// A summary changed one part at a time: the index agrees with the definition, and every flag it leaves out
    /// answers the same before and after, at several instants around the windows and for several app versions.
    @Test(arguments: [7, 8]) func aSinglePartChanged_reachesEveryFlagWhoseAnswerMoved(seed: UInt64) {
        var random = SplitMix(seed: seed)
        let rules = Self.partRules
        for _ in 0..<250 {
            var before = UserContext()
            if let summary = Self.partSummary(&random) { before.donations["e"] = summary }
            if random.next(upTo: 2) == 0 { before.donations["other"] = DonationSummary(count: 1) }
            var after = before
            after.donations["e"] = Self.changingOnePart(before.donations["e"], &random)
            let reached = rules.flagsAffected(from: before, to: after).map(\.key)
            #expect(rules.flagsAffected(by: UserContext.changedInputs(from: before, to: after)) == reached)
            for now in [t0, t0 + hour / 2, t0 + hour, t0 + 3 * hour] {
                for version in Self.partVersions {
                    for key in rules.flagKeys where !reached.contains(key) {
                        let old = rules.evaluate(key, input(before, now, appVersion: version)).value
                        let new = rules.evaluate(key, input(after, now, appVersion: version)).value
                        #expect(
                            old == new,
                            "\(key) changed but was not reached: \(before.donations["e"].map { "\($0)" } ?? "none") to \(after.donations["e"].map { "\($0)" } ?? "none")"
                        )
                    }
                }
            }
        }
    }

    @Test func flagsAffected_byAnUnreadKey_isOnlyTheFlagdFlags() {
        var before = UserContext()
        before.counters["unread"] = 1
        let after = UserContext()
        #expect(Self.rules.flagsAffected(from: before, to: after).map(\.key) == ["d0", "d1", "pd"])
        #expect(Self.rules.flagsAffected(from: after, to: after).isEmpty)
    }

    /// Leaves 10…14 read the NFC spelling, 15…19 the NFD one; `g` flags also read another leaf, `d` are flagd.
    @Test func flagsAffected_byNfdKey_leavesTheNfcReadersOut() {
        let rules = Self.makeRules(reading: ["a", "b", "caf\u{E9}", Self.nfd])
        var before = UserContext()
        before.counters["caf\u{E9}"] = 1
        var after = before
        after.counters[Self.nfd] = 1
        let keys = rules.flagsAffected(from: before, to: after).map(\.key)
        #expect(keys == ["g12", "f15", "g15", "h15", "k15", "d0", "d1", "p12", "q12", "p15", "q15", "r15", "pd"])
    }
}
