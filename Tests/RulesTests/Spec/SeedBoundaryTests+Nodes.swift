import Rules
import Testing

/// SpecificationKit's composition (`and`, `or`, `not`) and FirstMatchSpec's `AlwaysTrueSpec` fallback.
let combinatorSeedCases: [SeedCase] = {
    let composition = "SpecificationKit and/or/not"
    return [
        .init(composition, "all: every child", #"{"all": [{"always": true}, {"always": true}]}"#, true),
        .init(composition, "all: one false child", #"{"all": [{"always": true}, {"always": false}]}"#, false),
        .init(composition, "any: one true child", #"{"any": [{"always": false}, {"always": true}]}"#, true),
        .init(composition, "none: a true child", #"{"none": [{"always": false}, {"always": true}]}"#, false),
        .init(composition, "not", #"{"not": {"always": true}}"#, false),
        .init(
            "specd atLeast: n of", "atLeast n = holding children",
            #"{"atLeast": {"n": 2, "of": [{"always": true}, {"always": true}, {"always": false}]}}"#, true),
        .init(
            "specd atLeast: n of", "atLeast n = holding + 1",
            #"{"atLeast": {"n": 3, "of": [{"always": true}, {"always": true}, {"always": false}]}}"#, false),
        .init("specd atLeast: n of", "atLeast n above the children", #"{"atLeast": {"n": 4, "of": [{"always": true}]}}"#, false),
        .init("SpecificationKit AlwaysTrueSpec", "always true", #"{"always": true}"#, true)
    ]
}()

/// SpecificationKit FeatureFlagSpec ("missing flags do not match"), counter predicates and MaxCountSpec.
let flagAndCounterSeedCases: [SeedCase] = {
    let featureFlag = "SpecificationKit FeatureFlagSpec: missing flags do not match"
    let counter = "SpecificationKit PredicateSpec.counter(.greaterThanOrEqual, 3); counter(for:) reads 0"
    let maxCount = "SpecificationKit MaxCountSpec: counter < limit (\"allow maximum 3\")"
    return [
        .init(featureFlag, "flag missing, equals true", #"{"flag": "f"}"#, false),
        .init(featureFlag, "flag missing, equals false", #"{"flag": {"key": "f", "equals": false}}"#, false),
        .init(featureFlag, "flag missing, ifMissing true", #"{"flag": {"key": "f", "equals": false, "ifMissing": true}}"#, true),
        .init(featureFlag, "flag false, equals false", #"{"flag": {"key": "f", "equals": false}}"#, context { $0.flags["f"] = false }, true),
        .init(counter, "counter gte at the bound", #"{"counter": {"key": "k", "gte": 3}}"#, context { $0.counters["k"] = 3 }, true),
        .init(counter, "counter gte one below", #"{"counter": {"key": "k", "gte": 3}}"#, context { $0.counters["k"] = 2 }, false),
        .init(counter, "counter gt at the bound", #"{"counter": {"key": "k", "gt": 3}}"#, context { $0.counters["k"] = 3 }, false),
        .init(counter, "counter lte at the bound", #"{"counter": {"key": "k", "lte": 3}}"#, context { $0.counters["k"] = 3 }, true),
        .init(counter, "counter lt at the bound", #"{"counter": {"key": "k", "lt": 3}}"#, context { $0.counters["k"] = 3 }, false),
        .init(counter, "counter missing reads 0 for lt 1", #"{"counter": {"key": "k", "lt": 1}}"#, true),
        .init(counter, "counter missing reads 0 for ne 0", #"{"counter": {"key": "k", "ne": 0}}"#, false),
        .init(counter, "counter between, low end", #"{"counter": {"key": "k", "between": [3, 5]}}"#, context { $0.counters["k"] = 3 }, true),
        .init(counter, "counter between, high end", #"{"counter": {"key": "k", "between": [3, 5]}}"#, context { $0.counters["k"] = 5 }, true),
        .init(counter, "counter between, below", #"{"counter": {"key": "k", "between": [3, 5]}}"#, context { $0.counters["k"] = 2 }, false),
        .init(
            counter, "counter negative (setCounter) compares as is", #"{"counter": {"key": "k", "lt": 0}}"#, context { $0.counters["k"] = -1 }, true),
        .init(maxCount, "maxCount one below the limit", #"{"maxCount": {"counter": "k", "limit": 3}}"#, context { $0.counters["k"] = 2 }, true),
        .init(maxCount, "maxCount at the limit", #"{"maxCount": {"counter": "k", "limit": 3}}"#, context { $0.counters["k"] = 3 }, false),
        .init("SpecificationKit MaxCountSpec.onlyOnce: limit 1", "onlyOnce before", #"{"maxCount": {"counter": "k", "limit": 1}}"#, true),
        .init(
            "SpecificationKit MaxCountSpec.onlyOnce: limit 1", "onlyOnce after", #"{"maxCount": {"counter": "k", "limit": 1}}"#,
            context { $0.counters["k"] = 1 }, false),
        .init(maxCount, "maxCount limit 0", #"{"maxCount": {"counter": "k", "limit": 0}}"#, false)
    ]
}()

/// SpecificationKit TimeSinceEventSpec / CooldownIntervalSpec: `now - event >= interval`; sinceAppLaunch likewise.
let elapsedSeedCases: [SeedCase] = {
    let timeSince = "SpecificationKit TimeSinceEventSpec: timeSince >= minimumInterval"
    let cooldown = "SpecificationKit CooldownIntervalSpec: same arithmetic"
    let launch = "SpecificationKit TimeSinceEventSpec.sinceAppLaunch: timeSinceLaunch >= s"
    let shown = { (offset: Int64) in context { $0.events["e"] = t0 - offset } }
    return [
        .init(timeSince, "timeSince at exactly the interval", #"{"timeSince": {"event": "e", "atLeast": "1h"}}"#, shown(hour), true),
        .init(timeSince, "timeSince 1 ms short", #"{"timeSince": {"event": "e", "atLeast": "1h"}}"#, shown(hour - 1), false),
        .init(timeSince, "timeSince never happened", #"{"timeSince": {"event": "e", "atLeast": "1h"}}"#, true),
        .init(timeSince, "timeSince dated ahead of now", #"{"timeSince": {"event": "e", "atLeast": "0s"}}"#, shown(-1), false),
        .init(cooldown, "cooldown weekly at exactly 7 days", #"{"cooldown": {"event": "e", "for": "1w"}}"#, shown(7 * day), true),
        .init(cooldown, "cooldown weekly 1 ms short", #"{"cooldown": {"event": "e", "for": "1w"}}"#, shown(7 * day - 1), false),
        .init(cooldown, "cooldown never happened", #"{"cooldown": {"event": "e", "for": "1w"}}"#, true),
        .init(launch, "sinceLaunch 10 s at 15 s", #"{"sinceLaunch": "10s"}"#, context { $0.launchedAt = t0 - 15_000 }, true),
        .init(launch, "sinceLaunch at exactly 10 s", #"{"sinceLaunch": "10s"}"#, context { $0.launchedAt = t0 - 10_000 }, true),
        .init(launch, "sinceLaunch 1 ms short", #"{"sinceLaunch": "10s"}"#, context { $0.launchedAt = t0 - 9_999 }, false),
        .init(
            "SpecificationKit OnboardingSpec: sinceAppLaunch(days: 7).not()", "first week is over at exactly 7 days",
            #"{"not": {"sinceLaunch": "7d"}}"#, context { $0.launchedAt = t0 - 7 * day }, false),
        .init(
            "specd: launchedAt = first seen", "sinceLaunch unknown launch counts as now: 0 s holds", #"{"sinceLaunch": "0s"}"#,
            context { $0.launchedAt = nil }, true),
        .init(
            "specd: launchedAt = first seen", "sinceLaunch unknown launch counts as now: 1 s does not", #"{"sinceLaunch": "1s"}"#,
            context { $0.launchedAt = nil }, false)
    ]
}()

/// SpecificationKit DateComparisonSpec (strict `.before` / `.after`), DateRangeSpec (inclusive) and
/// `PredicateSpec.currentHour(in: 9...17)` (a closed range of hours).
let calendarSeedCases: [SeedCase] = {
    let comparison = "SpecificationKit DateComparisonSpec: strictly before / after"
    let range = "SpecificationKit DateRangeSpec: start <= now <= end"
    let hours = "SpecificationKit currentHour(in: 9...17): closed range"
    let event = { (instant: Instant) in context { $0.events["e"] = instant } }
    return [
        .init("specd eventExists", "eventExists present", #"{"eventExists": "e"}"#, event(t0), true),
        .init("specd eventExists", "eventExists absent", #"{"eventExists": "e"}"#, false),
        .init(
            comparison, "eventDate before: equal is not before", #"{"eventDate": {"event": "e", "before": "2026-03-10T12:00:00Z"}}"#, event(t0), false
        ),
        .init(
            comparison, "eventDate after: equal is not after", #"{"eventDate": {"event": "e", "after": "2026-03-10T12:00:00Z"}}"#, event(t0), false),
        .init(
            comparison, "eventDate after and before: inside",
            #"{"eventDate": {"event": "e", "after": "2026-03-10T11:00:00Z", "before": "2026-03-10T13:00:00Z"}}"#, event(t0), true),
        .init(comparison, "eventDate missing event", #"{"eventDate": {"event": "e", "before": "2030-01-01T00:00:00Z"}}"#, false),
        .init(range, "dateRange from = to = now", #"{"dateRange": {"from": "2026-03-10T12:00:00Z", "to": "2026-03-10T12:00:00Z"}}"#, true),
        .init(range, "dateRange 1 ms before from", #"{"dateRange": {"from": "2026-03-10T12:00:00Z"}}"#, now: t0 - 1, false),
        .init(range, "dateRange 1 ms after to", #"{"dateRange": {"to": "2026-03-10T12:00:00Z"}}"#, now: t0 + 1, false),
        .init(hours, "hourIn at the first minute of the start hour", #"{"hourIn": [9, 17]}"#, now: at("2026-03-10T09:00:00Z"), true),
        .init(hours, "hourIn 1 ms before the start hour", #"{"hourIn": [9, 17]}"#, now: at("2026-03-10T08:59:59.999Z"), false),
        .init(hours, "hourIn the last millisecond of the end hour", #"{"hourIn": [9, 17]}"#, now: at("2026-03-10T17:59:59.999Z"), true),
        .init(hours, "hourIn the hour after the end hour", #"{"hourIn": [9, 17]}"#, now: at("2026-03-10T18:00:00Z"), false),
        .init(hours, "hourIn wrapping midnight, end hour", #"{"hourIn": [22, 7]}"#, now: at("2026-03-10T07:59:00Z"), true),
        .init(hours, "hourIn wrapping midnight, after", #"{"hourIn": [22, 7]}"#, now: at("2026-03-10T08:00:00Z"), false),
        .init(
            hours, "hourIn in the user's zone (Paris, UTC+1)", #"{"hourIn": [9, 17]}"#, context { $0.timeZone = "Europe/Paris" },
            now: at("2026-03-10T16:59:00Z"), true),
        .init(
            hours, "hourIn in the user's zone, past the end", #"{"hourIn": [9, 17]}"#, context { $0.timeZone = "Europe/Paris" },
            now: at("2026-03-10T17:00:00Z"), false),
        .init("ISO 8601 weekday: Monday = 1", "weekday Monday", #"{"weekday": [1]}"#, now: at("2026-03-09T00:00:00Z"), true),
        .init("ISO 8601 weekday: Sunday = 7", "weekday Sunday last millisecond", #"{"weekday": [7]}"#, now: at("2026-03-15T23:59:59.999Z"), true),
        .init("ISO 8601 weekday: Sunday = 7", "weekday Sunday is over at midnight", #"{"weekday": [7]}"#, now: at("2026-03-16T00:00:00Z"), false)
    ]
}()

/// SpecificationKit UserSegmentSpec and SubscriptionStatusSpec (`userData["subscription_status"]`), and the
/// typed `attr` tests (a type mismatch or a missing attribute never holds).
let membershipSeedCases: [SeedCase] = {
    let segment = "SpecificationKit UserSegmentSpec"
    let subscription = "SpecificationKit SubscriptionStatusSpec: userData[\"subscription_status\"]"
    let typed = "specd attr: typed; mismatch or missing does not hold"
    return [
        .init(segment, "segment member", #"{"segment": "vip"}"#, context { $0.segments = ["vip"] }, true),
        .init(segment, "segment not member", #"{"segment": "vip"}"#, context { $0.segments = ["beta"] }, false),
        .init(segment, "segments all: every one", #"{"segments": {"all": ["vip", "beta"]}}"#, context { $0.segments = ["vip", "beta"] }, true),
        .init(segment, "segments any: none", #"{"segments": {"any": ["vip", "beta"]}}"#, false),
        .init(
            subscription, "subscription equal", #"{"subscription": "premium"}"#, context { $0.attributes["subscription_status"] = "premium" }, true),
        .init(
            subscription, "subscription differs in case", #"{"subscription": "premium"}"#,
            context { $0.attributes["subscription_status"] = "PREMIUM" }, false),
        .init(subscription, "subscription a number", #"{"subscription": "1"}"#, context { $0.attributes["subscription_status"] = 1 }, false),
        .init(subscription, "subscription missing", #"{"subscription": "premium"}"#, false),
        .init(typed, "attr gte at the bound", #"{"attr": {"key": "n", "gte": 5}}"#, context { $0.attributes["n"] = 5 }, true),
        .init(typed, "attr gt at the bound", #"{"attr": {"key": "n", "gt": 5}}"#, context { $0.attributes["n"] = 5 }, false),
        .init(typed, "attr lte at the bound, 5.0 = 5", #"{"attr": {"key": "n", "lte": 5}}"#, context { $0.attributes["n"] = .double(5.0) }, true),
        .init(typed, "attr lt: a string is not a number", #"{"attr": {"key": "n", "lt": 5}}"#, context { $0.attributes["n"] = "1" }, false),
        .init(typed, "attr ne: another type holds for neither", #"{"attr": {"key": "n", "ne": 5}}"#, context { $0.attributes["n"] = "5" }, false),
        .init(typed, "attr ne missing", #"{"attr": {"key": "n", "ne": 5}}"#, false),
        .init(typed, "attr notIn missing", #"{"attr": {"key": "n", "notIn": [5]}}"#, false),
        .init(typed, "attr exists false, missing", #"{"attr": {"key": "n", "exists": false}}"#, true),
        .init(
            typed, "attr semverGte equal, zero-padded", #"{"attr": {"key": "os", "semverGte": "17.2"}}"#, context { $0.attributes["os"] = "17.2.0" },
            true),
        .init(typed, "attr semverLt equal", #"{"attr": {"key": "os", "semverLt": "17.2"}}"#, context { $0.attributes["os"] = "17.2" }, false)
    ]
}()

/// RuleKit's `donations.count` (`$0.donations.count >= 3`), the request's app version, and rollouts.
let countVersionRolloutSeedCases: [SeedCase] = {
    let count = "RuleKit donations.count >= 3"
    let window = "specd donations within: [now - d, now], inclusive"
    let three = donating("appStarted", [(t0 - 7 * day, "1.0"), (t0 - day, "1.0"), (t0, "1.0")])
    let ahead = donating("appStarted", [(t0 + 1, "1.0")])
    let version = "specd appVersion: absent does not hold"
    return [
        .init(count, "donations gte 3 at 3", #"{"donations": {"event": "appStarted", "gte": 3}}"#, three, true),
        .init(
            count, "donations gte 3 at 2", #"{"donations": {"event": "appStarted", "gte": 3}}"#, donating("appStarted", [(t0, nil), (t0, nil)]), false
        ),
        .init(count, "donations never: count 0", #"{"donations": {"event": "appStarted", "eq": 0}}"#, true),
        .init(
            window, "donations within 7d includes one exactly 7d old", #"{"donations": {"event": "appStarted", "eq": 3, "within": "7d"}}"#, three,
            true),
        .init(
            window, "donations within 7d drops it 1 ms later", #"{"donations": {"event": "appStarted", "eq": 2, "within": "7d"}}"#, three,
            now: t0 + 1, true),
        .init(
            window, "donations within: one dated ahead of now is not yet in", #"{"donations": {"event": "appStarted", "eq": 0, "within": "1h"}}"#,
            ahead, true),
        .init(version, "appVersion gte equal", #"{"appVersion": {"gte": "2.1"}}"#, appVersion: "2.1.0", true),
        .init(version, "appVersion lt equal", #"{"appVersion": {"lt": "2.1"}}"#, appVersion: "2.1", false),
        .init(version, "appVersion 1.10 > 1.9", #"{"appVersion": {"gt": "1.9"}}"#, appVersion: "1.10", true),
        .init(version, "appVersion ne, absent", #"{"appVersion": {"ne": "2.1"}}"#, false),
        .init("specd rollout: bucket < percent x 100", "rollout 100 %", #"{"rollout": {"percent": 100}}"#, true),
        .init("specd rollout: bucket < percent x 100", "rollout 0 %", #"{"rollout": {"percent": 0}}"#, false),
        .init("specd rollout: by attribute missing", "rollout 100 % by a missing attribute", #"{"rollout": {"percent": 100, "by": "team"}}"#, false)
    ]
}()

extension SeedBoundaryTests {
    @Test(arguments: combinatorSeedCases)
    func combinators_keepSpecificationKitComposition(_ test: SeedCase) throws { try test.check() }

    @Test(arguments: flagAndCounterSeedCases)
    func flagCounterMaxCount_keepSpecificationKitBounds(_ test: SeedCase) throws { try test.check() }

    @Test(arguments: elapsedSeedCases)
    func timeSinceCooldownSinceLaunch_areInclusive(_ test: SeedCase) throws { try test.check() }

    @Test(arguments: calendarSeedCases)
    func eventsDatesHoursWeekdays_keepTheirEnds(_ test: SeedCase) throws { try test.check() }

    @Test(arguments: membershipSeedCases)
    func segmentsSubscriptionAttributes_keepTheirTypes(_ test: SeedCase) throws { try test.check() }

    @Test(arguments: countVersionRolloutSeedCases)
    func donationCountAppVersionRollout_keepTheirBounds(_ test: SeedCase) throws { try test.check() }
}
