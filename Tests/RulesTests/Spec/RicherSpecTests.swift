import Rules
import Testing

/// Boundaries of the richer leaves, each case evaluated and explained (both must agree with the expected answer).
@Suite struct RicherSpecTests {
    static func check(_ node: NodeCase) throws {
        let compiled = try compileSpec(node.spec)
        let evaluation = input(node.context, node.now, appVersion: node.appVersion)
        #expect(compiled.holds(evaluation) == node.expected, "\(node.name)")
        let explained = compiled.explain(evaluation)
        #expect(explained.result == node.expected, "\(node.name): explain")
        #expect(explained.why?.isEmpty == false, "\(node.name): explain has a why")
    }

    static let backoff = #"{"cooldown": {"event": "e", "for": "1h", "backoff": {"counter": "n", "factor": 2, "max": "30d"}}}"#

    static func nudged(_ count: Int?, lastAgo: Int64) -> UserContext {
        context {
            if let count { $0.counters["n"] = count }
            $0.events["e"] = t0 - lastAgo
        }
    }

    static let backoffCases: [NodeCase] = [
        NodeCase("counter missing: 1h, at exactly 1h", backoff, nudged(nil, lastAgo: hour), true),
        NodeCase("counter missing: 1h, 1 ms short", backoff, nudged(nil, lastAgo: hour - 1), false),
        NodeCase("negative counter reads 0: 1h", backoff, nudged(-5, lastAgo: hour), true),
        NodeCase("counter 3: 8h, 1 ms short", backoff, nudged(3, lastAgo: 8 * hour - 1), false),
        NodeCase("counter 3: 8h, exactly", backoff, nudged(3, lastAgo: 8 * hour), true),
        NodeCase("counter 10: capped at 30d, 1 ms short", backoff, nudged(10, lastAgo: 30 * day - 1), false),
        NodeCase("counter 10: capped at 30d, exactly", backoff, nudged(10, lastAgo: 30 * day), true),
        NodeCase("counter Int.max: capped, no trap", backoff, nudged(Int.max, lastAgo: 30 * day), true),
        NodeCase("never happened: holds", backoff, context { $0.counters["n"] = 4 }, true),
        NodeCase("future event: does not hold", backoff, nudged(0, lastAgo: -hour), false)
    ]

    @Test(arguments: backoffCases) func backoffCooldown(_ node: NodeCase) throws { try Self.check(node) }

    static let month: Int64 = 30 * 86_400_000
    static let lengthTable: [(factor: Double, counter: Int, expected: Int64)] = [
        (2, 0, 3_600_000), (2, 1, 7_200_000), (2, 62, month), (2, Int.max, month), (1.5, 2, 8_100_000), (1.5, -3, 3_600_000),
        (1.5, Int.max, month), (1, Int.max, 3_600_000), (1e300, 1, month), (3, 2, 32_400_000)
    ]

    @Test(arguments: lengthTable)
    func backoffLength_table(factor: Double, counter: Int, expected: Int64) throws {
        let text = JSONNumber(factor).text
        let spec = try compileSpec(#"{"cooldown": {"event": "e", "for": "1h", "backoff": {"counter": "n", "factor": \#(text), "max": "30d"}}}"#)
        guard case .backoffCooldown(let cooldown) = spec else { throw RuleSetError([]) }
        #expect(cooldown.length(counter: counter) == expected)
    }

    @Test func backoff_nextChangeIsTheEffectiveEnd() throws {
        let spec = try compileSpec(Self.backoff)
        let user = Self.nudged(2, lastAgo: hour)
        #expect(spec.nextChange(input(user)) == t0 + 3 * hour)
        #expect(spec.holds(input(user, t0 + 3 * hour - 1)) == false)
        #expect(spec.holds(input(user, t0 + 3 * hour)) == true)
    }

    // Paris: CET (+1) in winter, CEST (+2) from 2026-03-29 01:00 UTC.
    static let nightly = #"{"cooldown": {"event": "e", "day": "1h", "night": "8h", "nightHours": [22, 7]}}"#

    static func paris(lastAt: String) -> UserContext {
        context {
            $0.timeZone = "Europe/Paris"
            $0.events["e"] = at(lastAt)
        }
    }

    static let dayNightCases: [NodeCase] = [
        NodeCase("day, 1h elapsed", nightly, paris(lastAt: "2026-03-10T10:00:00Z"), now: at("2026-03-10T11:00:00Z"), true),
        NodeCase("day, 1 ms short", nightly, paris(lastAt: "2026-03-10T10:00:00Z"), now: at("2026-03-10T10:59:59.999Z"), false),
        NodeCase("21:59 local is day", nightly, paris(lastAt: "2026-03-10T19:00:00Z"), now: at("2026-03-10T20:59:00Z"), true),
        NodeCase("22:00 local is night", nightly, paris(lastAt: "2026-03-10T19:00:00Z"), now: at("2026-03-10T21:00:00Z"), false),
        NodeCase("07:59 local is still night", nightly, paris(lastAt: "2026-03-10T04:00:00Z"), now: at("2026-03-10T06:59:00Z"), false),
        NodeCase("08:00 local is day", nightly, paris(lastAt: "2026-03-10T04:00:00Z"), now: at("2026-03-10T07:00:00Z"), true),
        NodeCase("night, 8h elapsed", nightly, paris(lastAt: "2026-03-10T20:00:00Z"), now: at("2026-03-11T04:00:00Z"), true),
        NodeCase(
            "node tz wins over the user's", #"{"cooldown": {"event": "e", "day": "1h", "night": "8h", "nightHours": [22, 7]}, "tz": "Asia/Tokyo"}"#,
            paris(lastAt: "2026-03-10T10:00:00Z"), now: at("2026-03-10T13:00:00Z"), false),
        NodeCase("no zone: UTC", nightly, context { $0.events["e"] = at("2026-03-10T20:00:00Z") }, now: at("2026-03-10T21:30:00Z"), true),
        NodeCase("never happened", nightly, context { $0.timeZone = "Europe/Paris" }, true)
    ]

    @Test(arguments: dayNightCases) func dayNightCooldown(_ node: NodeCase) throws { try Self.check(node) }

    /// (last event, now, expected next change) in Paris, DST days included.
    @Test(arguments: [
        ("2026-03-10T19:00:00Z", "2026-03-10T19:30:00Z", "2026-03-10T20:00:00Z"), // day: the hour passes first
        ("2026-03-10T20:30:00Z", "2026-03-10T20:45:00Z", "2026-03-11T04:30:00Z"), // night falls first: then 8h
        ("2026-03-10T19:30:00Z", "2026-03-10T20:45:00Z", "2026-03-10T21:00:00Z"), // holding, night falls: stops
        ("2026-03-10T23:00:00Z", "2026-03-11T05:00:00Z", "2026-03-11T07:00:00Z"), // 08:00 local ends the night
        // 2026-03-29: the night [22, 7] ends at 08:00 CEST = 06:00 UTC, not 07:00 as CET would say.
        ("2026-03-29T01:30:00Z", "2026-03-29T02:00:00Z", "2026-03-29T06:00:00Z"),
        // 2026-10-25: back to CET at 01:00 UTC; the night ends at 08:00 CET = 07:00 UTC.
        ("2026-10-25T01:30:00Z", "2026-10-25T02:00:00Z", "2026-10-25T07:00:00Z")
    ])
    func dayNight_nextChange_inParis(last: String, now: String, expected: String) throws {
        let spec = try compileSpec(Self.nightly)
        let user = Self.paris(lastAt: last)
        let change = try #require(spec.nextChange(input(user, at(now))))
        #expect(change == at(expected))
        #expect(spec.holds(input(user, change - 1)) == spec.holds(input(user, at(now))))
        #expect(spec.holds(input(user, change)) != spec.holds(input(user, at(now))))
    }

    @Test func dayNight_fallBackInNewYork_repeatsTheNightHour() throws {
        // 2026-11-01: 02:00 EDT becomes 01:00 EST at 06:00 UTC; with night [22, 1] the day begins at 02:00 EST.
        let spec = try compileSpec(#"{"cooldown": {"event": "e", "day": "1h", "night": "8h", "nightHours": [22, 1]}, "tz": "America/New_York"}"#)
        let user = context { $0.events["e"] = at("2026-11-01T04:00:00Z") }
        #expect(spec.holds(input(user, at("2026-11-01T05:30:00Z"))) == false)
        #expect(spec.nextChange(input(user, at("2026-11-01T05:30:00Z"))) == at("2026-11-01T07:00:00Z"))
    }

    static func launched(_ ago: Int64?) -> UserContext { context { $0.launchedAt = ago.map { t0 - $0 } } }

    static let launchCases: [NodeCase] = [
        NodeCase("gt at exactly 30s", #"{"sinceLaunch": {"gt": "30s"}}"#, launched(30_000), false),
        NodeCase("gt 1 ms past", #"{"sinceLaunch": {"gt": "30s"}}"#, launched(30_001), true),
        NodeCase("gte at exactly 30s", #"{"sinceLaunch": {"gte": "30s"}}"#, launched(30_000), true),
        NodeCase("lt at exactly 30s", #"{"sinceLaunch": {"lt": "30s"}}"#, launched(30_000), false),
        NodeCase("lt 1 ms short", #"{"sinceLaunch": {"lt": "30s"}}"#, launched(29_999), true),
        NodeCase("lte at exactly 30s", #"{"sinceLaunch": {"lte": "30s"}}"#, launched(30_000), true),
        NodeCase("unknown launch reads as now: lt holds", #"{"sinceLaunch": {"lt": "30s"}}"#, launched(nil), true),
        NodeCase("string form stays gte", #"{"sinceLaunch": "30s"}"#, launched(30_000), true)
    ]

    @Test(arguments: launchCases) func sinceLaunchComparison(_ node: NodeCase) throws { try Self.check(node) }

    @Test(arguments: [("gt", Int64(30_001)), ("gte", 30_000), ("lt", 30_000), ("lte", 30_001)])
    func sinceLaunch_nextChange(op: String, expected: Int64) throws {
        let spec = try compileSpec(#"{"sinceLaunch": {"\#(op)": "30s"}}"#)
        let user = context { $0.launchedAt = t0 }
        #expect(spec.nextChange(input(user)) == t0 + expected)
        #expect(spec.holds(input(user, t0 + expected - 1)) != spec.holds(input(user, t0 + expected)))
    }

    static func attributes(_ values: [String: JSONValue]) -> UserContext {
        context { user in for (key, value) in values { user.attributes[key] = value } }
    }

    static let big = "9007199254740993" // 2^53 + 1: not a double

    static let numberCases: [NodeCase] = [
        NodeCase("between, low end", #"{"attr": {"key": "s", "between": [10, 20]}}"#, attributes(["s": .int(10)]), true),
        NodeCase("between, high end", #"{"attr": {"key": "s", "between": [10, 20]}}"#, attributes(["s": .int(20)]), true),
        NodeCase("between, just above", #"{"attr": {"key": "s", "between": [10, 20]}}"#, attributes(["s": .double(20.0001)]), false),
        NodeCase("between, a string", #"{"attr": {"key": "s", "between": [10, 20]}}"#, attributes(["s": "15"]), false),
        NodeCase("between, missing", #"{"attr": {"key": "s", "between": [10, 20]}}"#, attributes([:]), false),
        NodeCase("between, 1e300", #"{"attr": {"key": "s", "between": [-1e300, 1e300]}}"#, attributes(["s": .double(1e300)]), true),
        NodeCase(
            "between, exact past 2^53", #"{"attr": {"key": "s", "between": [\#(big), \#(big)]}}"#,
            attributes(["s": .number(try! JSONParser().parse("9007199254740992").numberValue!)]), false),
        NodeCase("tolerance, at the edge", #"{"attr": {"key": "s", "eq": 100, "tolerance": 5}}"#, attributes(["s": .int(95)]), true),
        NodeCase("tolerance, past the edge", #"{"attr": {"key": "s", "eq": 100, "tolerance": 5}}"#, attributes(["s": .int(106)]), false),
        NodeCase("tolerance, fractions", #"{"attr": {"key": "s", "eq": 1.5, "tolerance": 0.25}}"#, attributes(["s": .double(1.75)]), true),
        NodeCase("tolerance 0 is eq", #"{"attr": {"key": "s", "eq": 3, "tolerance": 0}}"#, attributes(["s": .int(3)]), true),
        NodeCase("tolerance, a bool", #"{"attr": {"key": "s", "eq": 1, "tolerance": 5}}"#, attributes(["s": true]), false),
        NodeCase(
            "tolerance, infinite difference", #"{"attr": {"key": "s", "eq": 1e308, "tolerance": 1e308}}"#,
            attributes(["s": .double(-1e308)]), false),
        NodeCase(
            "tolerance, Int.min against Int.max", #"{"attr": {"key": "s", "eq": 9223372036854775807, "tolerance": 1}}"#,
            attributes(["s": .int(Int.min)]), false)
    ]

    @Test(arguments: numberCases) func attributeNumbers(_ node: NodeCase) throws { try Self.check(node) }

    static let both = context {
        $0.counters["views"] = 5
        $0.counters["goal"] = 5
        $0.attributes["score"] = .int(7)
        $0.attributes["best"] = .double(7.5)
        $0.attributes["name"] = "b"
        $0.attributes["other"] = "a"
        $0.attributes["flagged"] = true
    }

    static let referenceCases: [NodeCase] = [
        NodeCase("counter gte counter, equal", #"{"counter": {"key": "views", "gte": {"$counter": "goal"}}}"#, both, true),
        NodeCase("counter gt counter, equal", #"{"counter": {"key": "views", "gt": {"$counter": "goal"}}}"#, both, false),
        NodeCase("missing counter reads 0", #"{"counter": {"key": "views", "gt": {"$counter": "nothing"}}}"#, both, true),
        NodeCase("counter lt attribute", #"{"counter": {"key": "views", "lt": {"$attr": "score"}}}"#, both, true),
        NodeCase("counter against missing attribute", #"{"counter": {"key": "views", "ne": {"$attr": "nothing"}}}"#, both, false),
        NodeCase("attribute lt attribute", #"{"attr": {"key": "score", "lt": {"$attr": "best"}}}"#, both, true),
        NodeCase("attribute within tolerance of another", #"{"attr": {"key": "score", "eq": {"$attr": "best"}, "tolerance": 0.5}}"#, both, true),
        NodeCase("strings by code points", #"{"attr": {"key": "name", "gt": {"$attr": "other"}}}"#, both, true),
        NodeCase("type mismatch, even ne", #"{"attr": {"key": "name", "ne": {"$attr": "score"}}}"#, both, false),
        NodeCase("booleans eq", #"{"attr": {"key": "flagged", "eq": {"$attr": "flagged"}}}"#, both, true),
        NodeCase("missing left attribute", #"{"attr": {"key": "nothing", "lte": {"$counter": "views"}}}"#, both, false)
    ]

    @Test(arguments: referenceCases) func contextReferences(_ node: NodeCase) throws { try Self.check(node) }

    @Test func references_areInputsOfTheFlag() throws {
        let set = try ruleSet(#"{"flags": {"f": {"when": {"attr": {"key": "a", "gt": {"$counter": "c"}}}}}}"#)
        #expect(set.flags["f"]?.inputs == [.attribute("a"), .counter("c")])
        var before = UserContext()
        before.attributes["a"] = .int(1)
        var after = before
        after.counters["c"] = 5
        #expect(set.flagsAffected(from: before, to: after).map(\.key) == ["f"])
        #expect(set.evaluate("f", input(before)).value != set.evaluate("f", input(after)).value)
    }
}
