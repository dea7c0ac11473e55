import Rules
import Testing

/// One node, one situation, one expected answer.
struct NodeCase: CustomTestStringConvertible, Sendable {
    let name: String
    let spec: String
    let context: UserContext
    let now: Instant
    let appVersion: String?
    let expected: Bool

    init(_ name: String, _ spec: String, now: Instant = t0, appVersion: String? = nil, _ expected: Bool) {
        self.init(name, spec, RulesTests.context(), now: now, appVersion: appVersion, expected)
    }

    init(_ name: String, _ spec: String, _ context: UserContext, now: Instant = t0, appVersion: String? = nil, _ expected: Bool) {
        self.name = name
        self.spec = spec
        self.context = context
        self.now = now
        self.appVersion = appVersion
        self.expected = expected
    }

    var testDescription: String { name }
}

let donated = context {
    $0.donations["appStarted"] = DonationSummary(
        count: 5, first: .init(at: t0 - 10 * day, appVersion: "1.9"), last: .init(at: t0 - hour, appVersion: "2.1.0"),
        recent: [t0 - 10 * day, t0 - 8 * day, t0 - 7 * day, t0 - 2 * day, t0 - hour])
}

let nodeCases: [NodeCase] =
    sameVersionTextCases + [
        // Combinators.
        .init("all holds when every child holds", #"{"all": [{"always": true}, {"always": true}]}"#, true),
        .init("all fails on one false child", #"{"all": [{"always": true}, {"always": false}]}"#, false),
        .init("any holds on one true child", #"{"any": [{"always": false}, {"always": true}]}"#, true),
        .init("any fails when none hold", #"{"any": [{"always": false}]}"#, false),
        .init("none holds when no child holds", #"{"none": [{"always": false}, {"always": false}]}"#, true),
        .init("none fails on one true child", #"{"none": [{"always": false}, {"always": true}]}"#, false),
        .init("not inverts", #"{"not": {"always": false}}"#, true),
        .init("atLeast n of: just enough", #"{"atLeast": {"n": 2, "of": [{"always": true}, {"always": false}, {"always": true}]}}"#, true),
        .init("atLeast n of: one short", #"{"atLeast": {"n": 3, "of": [{"always": true}, {"always": false}, {"always": true}]}}"#, false),
        .init("atLeast zero always holds", #"{"atLeast": {"n": 0, "of": [{"always": false}]}}"#, true),
        // Flags.
        .init("flag set true", #"{"flag": "promo"}"#, context { $0.flags["promo"] = true }, true),
        .init("flag set false", #"{"flag": "promo"}"#, context { $0.flags["promo"] = false }, false),
        .init("flag missing defaults to false", #"{"flag": "promo"}"#, false),
        .init("flag equals false matches false", #"{"flag": {"key": "promo", "equals": false}}"#, context { $0.flags["promo"] = false }, true),
        .init("flag missing uses ifMissing", #"{"flag": {"key": "promo", "equals": true, "ifMissing": true}}"#, true),
        // Counters: strict vs inclusive at the boundary.
        .init("counter lt below", #"{"counter": {"key": "k", "lt": 3}}"#, context { $0.counters["k"] = 2 }, true),
        .init("counter lt at bound", #"{"counter": {"key": "k", "lt": 3}}"#, context { $0.counters["k"] = 3 }, false),
        .init("counter lte at bound", #"{"counter": {"key": "k", "lte": 3}}"#, context { $0.counters["k"] = 3 }, true),
        .init("counter gt at bound", #"{"counter": {"key": "k", "gt": 3}}"#, context { $0.counters["k"] = 3 }, false),
        .init("counter gte at bound", #"{"counter": {"key": "k", "gte": 3}}"#, context { $0.counters["k"] = 3 }, true),
        .init("counter eq", #"{"counter": {"key": "k", "eq": 3}}"#, context { $0.counters["k"] = 3 }, true),
        .init("counter ne", #"{"counter": {"key": "k", "ne": 3}}"#, context { $0.counters["k"] = 3 }, false),
        .init("counter missing reads 0", #"{"counter": {"key": "k", "eq": 0}}"#, true),
        .init("counter between low end inclusive", #"{"counter": {"key": "k", "between": [1, 5]}}"#, context { $0.counters["k"] = 1 }, true),
        .init("counter between high end inclusive", #"{"counter": {"key": "k", "between": [1, 5]}}"#, context { $0.counters["k"] = 5 }, true),
        .init("counter between just above", #"{"counter": {"key": "k", "between": [1, 5]}}"#, context { $0.counters["k"] = 6 }, false),
        // maxCount: strict.
        .init("maxCount below limit", #"{"maxCount": {"counter": "shown", "limit": 2}}"#, context { $0.counters["shown"] = 1 }, true),
        .init("maxCount at limit", #"{"maxCount": {"counter": "shown", "limit": 2}}"#, context { $0.counters["shown"] = 2 }, false),
        .init("maxCount missing counter", #"{"maxCount": {"counter": "shown", "limit": 2}}"#, true),
        .init("maxCount limit 0 never holds", #"{"maxCount": {"counter": "shown", "limit": 0}}"#, false),
        // timeSince / cooldown: inclusive.
        .init("cooldown just before its end", #"{"cooldown": {"event": "e", "for": "3d"}}"#, context { $0.events["e"] = t0 - 3 * day + 1 }, false),
        .init("cooldown exactly at its end", #"{"cooldown": {"event": "e", "for": "3d"}}"#, context { $0.events["e"] = t0 - 3 * day }, true),
        .init("cooldown just after its end", #"{"cooldown": {"event": "e", "for": "3d"}}"#, context { $0.events["e"] = t0 - 3 * day - 1 }, true),
        .init("cooldown never happened", #"{"cooldown": {"event": "e", "for": "3d"}}"#, true),
        .init("timeSince at the duration", #"{"timeSince": {"event": "e", "atLeast": "10m"}}"#, context { $0.events["e"] = t0 - 10 * minute }, true),
        .init("timeSince just before", #"{"timeSince": {"event": "e", "atLeast": 600}}"#, context { $0.events["e"] = t0 - 10 * minute + 1 }, false),
        // sinceLaunch.
        .init("sinceLaunch before", #"{"sinceLaunch": "30s"}"#, context { $0.launchedAt = t0 - 29_999 }, false),
        .init("sinceLaunch at", #"{"sinceLaunch": "30s"}"#, context { $0.launchedAt = t0 - 30_000 }, true),
        .init("sinceLaunch after", #"{"sinceLaunch": "30s"}"#, context { $0.launchedAt = t0 - 30_001 }, true),
        .init("sinceLaunch unknown launch is now", #"{"sinceLaunch": "30s"}"#, context { $0.launchedAt = nil }, false),
        // Events.
        .init("eventExists present", #"{"eventExists": "e"}"#, context { $0.events["e"] = t0 }, true),
        .init("eventExists absent", #"{"eventExists": "e"}"#, false),
        .init(
            "eventDate before: strictly", #"{"eventDate": {"event": "e", "before": "2026-03-10T12:00:00Z"}}"#, context { $0.events["e"] = t0 }, false),
        .init(
            "eventDate before: earlier", #"{"eventDate": {"event": "e", "before": "2026-03-10T12:00:00Z"}}"#, context { $0.events["e"] = t0 - 1 },
            true),
        .init(
            "eventDate after: strictly", #"{"eventDate": {"event": "e", "after": "2026-03-10T12:00:00Z"}}"#, context { $0.events["e"] = t0 }, false),
        .init(
            "eventDate after: later", #"{"eventDate": {"event": "e", "after": "2026-03-10T12:00:00Z"}}"#, context { $0.events["e"] = t0 + 1 }, true),
        .init("eventDate missing event", #"{"eventDate": {"event": "e", "after": "2020-01-01T00:00:00Z"}}"#, false),
        // dateRange: inclusive ends.
        .init("dateRange at from", #"{"dateRange": {"from": "2026-03-10T12:00:00Z", "to": "2026-03-11T00:00:00Z"}}"#, true),
        .init("dateRange just before from", #"{"dateRange": {"from": "2026-03-10T12:00:00.001Z"}}"#, false),
        .init("dateRange at to", #"{"dateRange": {"to": "2026-03-10T12:00:00Z"}}"#, true),
        .init("dateRange just after to", #"{"dateRange": {"to": "2026-03-10T11:59:59.999Z"}}"#, false),
        // hourIn / weekday with zones (t0 is 13:00 in Paris, 08:00 in New York, a Tuesday).
        .init("hourIn UTC inclusive end", #"{"hourIn": [9, 12]}"#, true),
        .init("hourIn UTC just outside", #"{"hourIn": [13, 17]}"#, false),
        .init("hourIn node zone", #"{"hourIn": [13, 13], "tz": "Europe/Paris"}"#, true),
        .init("hourIn user zone", #"{"hourIn": [8, 8]}"#, context { $0.timeZone = "America/New_York" }, true),
        .init("hourIn node zone beats user zone", #"{"hourIn": [13, 13], "tz": "Europe/Paris"}"#, context { $0.timeZone = "America/New_York" }, true),
        .init("hourIn wrapping midnight", #"{"hourIn": [22, 6]}"#, now: at("2026-03-10T23:30:00Z"), true),
        .init("hourIn wrapping midnight outside", #"{"hourIn": [22, 6]}"#, now: at("2026-03-10T07:00:00Z"), false),
        .init("weekday Tuesday is 2", #"{"weekday": [2]}"#, true),
        .init("weekday in a zone past midnight", #"{"weekday": [3], "tz": "Asia/Tokyo"}"#, now: at("2026-03-10T15:30:00Z"), true),
        .init("weekday Sunday is 7", #"{"weekday": [7]}"#, now: at("2026-03-15T10:00:00Z"), true),
        // Segments and subscription.
        .init("segment member", #"{"segment": "vip"}"#, context { $0.segments = ["vip"] }, true),
        .init("segment not member", #"{"segment": "vip"}"#, false),
        .init("segments any", #"{"segments": {"any": ["a", "b"]}}"#, context { $0.segments = ["b"] }, true),
        .init("segments all missing one", #"{"segments": {"all": ["a", "b"]}}"#, context { $0.segments = ["b"] }, false),
        .init("subscription matches", #"{"subscription": "premium"}"#, context { $0.attributes["subscription_status"] = "premium" }, true),
        .init("subscription is case-sensitive", #"{"subscription": "premium"}"#, context { $0.attributes["subscription_status"] = "Premium" }, false),
        .init("subscription not a string", #"{"subscription": "premium"}"#, context { $0.attributes["subscription_status"] = true }, false),
        .init("subscription missing", #"{"subscription": "premium"}"#, false),
        // Attributes.
        .init("attr eq string", #"{"attr": {"key": "plan", "eq": "pro"}}"#, context { $0.attributes["plan"] = "pro" }, true),
        .init("attr eq number 5 vs 5.0", #"{"attr": {"key": "seats", "eq": 5}}"#, context { $0.attributes["seats"] = .double(5.0) }, true),
        .init("attr eq type mismatch", #"{"attr": {"key": "seats", "eq": 5}}"#, context { $0.attributes["seats"] = "5" }, false),
        .init("attr ne missing does not hold", #"{"attr": {"key": "plan", "ne": "pro"}}"#, false),
        .init("attr lt number", #"{"attr": {"key": "age", "lt": 18}}"#, context { $0.attributes["age"] = 17 }, true),
        .init("attr gte at bound", #"{"attr": {"key": "age", "gte": 18}}"#, context { $0.attributes["age"] = 18 }, true),
        .init("attr gt string vs number mismatch", #"{"attr": {"key": "age", "gt": 18}}"#, context { $0.attributes["age"] = "20" }, false),
        .init("attr in", #"{"attr": {"key": "country", "in": ["FR", "DE"]}}"#, context { $0.attributes["country"] = "DE" }, true),
        .init("attr notIn", #"{"attr": {"key": "country", "notIn": ["FR", "DE"]}}"#, context { $0.attributes["country"] = "US" }, true),
        .init(
            "attr contains substring", #"{"attr": {"key": "email", "contains": "@corp"}}"#, context { $0.attributes["email"] = "a@corp.com" }, true),
        .init("attr contains array element", #"{"attr": {"key": "tags", "contains": "x"}}"#, context { $0.attributes["tags"] = ["y", "x"] }, true),
        .init("attr startsWith", #"{"attr": {"key": "email", "startsWith": "admin"}}"#, context { $0.attributes["email"] = "admin@x" }, true),
        .init("attr endsWith", #"{"attr": {"key": "email", "endsWith": "@x.io"}}"#, context { $0.attributes["email"] = "a@x.io" }, true),
        .init("attr matches", #"{"attr": {"key": "country", "matches": "^(FR|DE)$"}}"#, context { $0.attributes["country"] = "FR" }, true),
        .init("attr matches no", #"{"attr": {"key": "country", "matches": "^(FR|DE)$"}}"#, context { $0.attributes["country"] = "FRA" }, false),
        .init("attr semverGte numeric components", #"{"attr": {"key": "os", "semverGte": "1.9"}}"#, context { $0.attributes["os"] = "1.10" }, true),
        .init("attr semverLt not a version", #"{"attr": {"key": "os", "semverLt": "2"}}"#, context { $0.attributes["os"] = "one" }, false),
        .init("attr exists", #"{"attr": {"key": "plan", "exists": true}}"#, context { $0.attributes["plan"] = .null }, true),
        .init("attr exists false", #"{"attr": {"key": "plan", "exists": false}}"#, true),
        .init("attr object member eq", #"{"attr": {"key": "plan", "eq": {"seats": 5}}}"#, context { $0.attributes["plan"] = ["seats": 5] }, true),
        // Donations.
        .init("donations total gte", #"{"donations": {"event": "appStarted", "gte": 5}}"#, donated, true),
        .init("donations total gt", #"{"donations": {"event": "appStarted", "gt": 5}}"#, donated, false),
        .init("donations none counts 0", #"{"donations": {"event": "other", "eq": 0}}"#, donated, true),
        .init("donations within 7d inclusive edge", #"{"donations": {"event": "appStarted", "eq": 3, "within": "7d"}}"#, donated, true),
        .init("donations within 2d", #"{"donations": {"event": "appStarted", "eq": 2, "within": "2d"}}"#, donated, true),
        .init("donations within just shorter", #"{"donations": {"event": "appStarted", "eq": 1, "within": 172799.999}}"#, donated, true),
        .init("lastDonation within inclusive", #"{"lastDonation": {"event": "appStarted", "within": "1h"}}"#, donated, true),
        .init("lastDonation within too short", #"{"lastDonation": {"event": "appStarted", "within": "59m"}}"#, donated, false),
        .init("lastDonation notWithin", #"{"lastDonation": {"event": "appStarted", "notWithin": "59m"}}"#, donated, true),
        .init("lastDonation never: within false", #"{"lastDonation": {"event": "x", "within": "1h"}}"#, false),
        .init("lastDonation never: notWithin true", #"{"lastDonation": {"event": "x", "notWithin": "1h"}}"#, true),
        // Versions.
        .init(
            "lastDonationVersion ne appVersion", #"{"lastDonationVersion": {"event": "appStarted", "ne": "$appVersion"}}"#, donated,
            appVersion: "2.2",
            true),
        .init(
            "lastDonationVersion zero-padded equal", #"{"lastDonationVersion": {"event": "appStarted", "ne": "$appVersion"}}"#, donated,
            appVersion: "2.1", false),
        .init(
            "firstDonationVersion same text eq", #"{"firstDonationVersion": {"event": "appStarted", "eq": "$appVersion"}}"#, donated,
            appVersion: "1.9",
            true),
        .init(
            "lastDonationVersion older text lt", #"{"lastDonationVersion": {"event": "appStarted", "lt": "$appVersion"}}"#, donated,
            appVersion: "2.1.1",
            true),
        .init("lastDonationVersion no request version", #"{"lastDonationVersion": {"event": "appStarted", "ne": "$appVersion"}}"#, donated, false),
        .init("firstDonationVersion lt", #"{"firstDonationVersion": {"event": "appStarted", "lt": "1.10"}}"#, donated, true),
        .init("donation version without donation", #"{"firstDonationVersion": {"event": "x", "lt": "9"}}"#, false),
        .init("appVersion gte equal", #"{"appVersion": {"gte": "2.1"}}"#, appVersion: "2.1.0", true),
        .init("appVersion numeric not lexical", #"{"appVersion": {"gt": "2.9"}}"#, appVersion: "2.10", true),
        .init("appVersion absent", #"{"appVersion": {"gte": "1"}}"#, false),
        // Rollout.
        .init("rollout 100 holds", #"{"rollout": {"percent": 100}}"#, true),
        .init("rollout 0 never", #"{"rollout": {"percent": 0}}"#, false),
        .init("rollout by missing attribute", #"{"rollout": {"percent": 100, "by": "account"}}"#, false),
        .init("rollout by present attribute", #"{"rollout": {"percent": 100, "by": "account"}}"#, context { $0.attributes["account"] = 42 }, true)
    ]

@Suite struct SpecNodeTests {
    @Test(arguments: nodeCases)
    func node_holdsExactlyAsSpecified(_ test: NodeCase) throws {
        let spec = try compileSpec(test.spec)
        #expect(spec.holds(input(test.context, test.now, appVersion: test.appVersion)) == test.expected, "\(test.name)")
        // Explanations agree with evaluation.
        #expect(spec.explain(input(test.context, test.now, appVersion: test.appVersion)).result == test.expected)
    }

    @Test func ref_resolvesNamedSpecs() throws {
        let set = try ruleSet(#"{"specs": {"a": {"ref": "b"}, "b": {"segment": "vip"}}, "flags": {"f": {"when": {"ref": "a"}}}}"#)
        #expect(set.evaluate("f", input(context { $0.segments = ["vip"] })).value == true)
        #expect(set.evaluate("f", input(context())).value == false)
    }

    @Test func rollout_matchesTheBucketingFormula() throws {
        let spec = try compileSpec(#"{"rollout": {"percent": 25, "salt": "s"}}"#, flagKey: "checkout")
        for user in (0..<200).map({ "user-\($0)" }) {
            let expected = Bucketing.bucket("s/checkout/" + user, totalWeight: 10_000) < 2500
            #expect(spec.holds(input(context(), user: user)) == expected)
        }
    }

    @Test func explain_reportsRemainingCooldown() throws {
        let spec = try compileSpec(#"{"cooldown": {"event": "last_promo", "for": "3d"}}"#)
        let node = spec.explain(input(context { $0.events["last_promo"] = t0 - 2 * day - 23 * hour }))
        #expect(node.result == false)
        #expect(node.why?.contains("remaining: 3600s") == true)
    }
}

/// A last donation from the same version text as the request's: every operator answers as for two equal versions
/// (the comparison skips parsing that text, and must not change an answer by it).
let sameVersionTextCases: [NodeCase] = [("eq", true), ("ne", false), ("lt", false), ("lte", true), ("gt", false), ("gte", true)].map {
    op, expected in
    NodeCase(
        "lastDonationVersion same text \(op)", #"{"lastDonationVersion": {"event": "appStarted", ""# + op + #"": "$appVersion"}}"#,
        donated, appVersion: "2.1.0", expected)
}
