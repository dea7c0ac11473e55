import Rules
import Testing

/// One boundary of one node, and the seed rule it keeps: the library whose semantics specd renders, and the
/// expression there that decides `>=` against `>`, an inclusive end, or what missing data means.
struct SeedCase: CustomTestStringConvertible, Sendable {
    let keeps: String
    /// The node, the situation and the seed's answer, as every node table states them.
    let node: NodeCase

    init(_ keeps: String, _ name: String, _ spec: String, now: Instant = t0, appVersion: String? = nil, _ expected: Bool) {
        self.init(keeps, name, spec, RulesTests.context(), now: now, appVersion: appVersion, expected)
    }

    init(
        _ keeps: String, _ name: String, _ spec: String, _ context: UserContext, now: Instant = t0, appVersion: String? = nil,
        _ expected: Bool
    ) {
        self.keeps = keeps
        node = NodeCase(name, spec, context, now: now, appVersion: appVersion, expected)
    }

    var testDescription: String { "\(node.name) (keeps \(keeps))" }

    /// Evaluation and explanation agree, and both give the seed's answer.
    func check() throws {
        let compiled = try compileSpec(node.spec)
        let evaluation = input(node.context, node.now, appVersion: node.appVersion)
        #expect(compiled.holds(evaluation) == node.expected, "\(node.name): keeps \(keeps)")
        #expect(compiled.explain(evaluation).result == node.expected, "\(node.name): explain")
    }
}

/// A user who donated `event` at each instant (in arrival order), with the versions given.
func donating(_ event: String, _ marks: [(Instant, String?)]) -> UserContext {
    context { user in
        var summary = DonationSummary()
        for (at, version) in marks {
            summary.count += 1
            let mark = DonationSummary.Mark(at: at, appVersion: version)
            if summary.first.map({ at < $0.at }) ?? true { summary.first = mark }
            if summary.last.map({ at >= $0.at }) ?? true { summary.last = mark }
        }
        summary.recent = DonationHistory(marks.map(\.0).sorted())
        user.donations[event] = summary
    }
}

/// RuleKit: `donations.last` and `donations.first` with their date and version; its conditions
/// `donatedWithin(s)` (`timeSinceLast <= s`) and `notDonatedFor(s)` (`timeSinceLast >= s`).
let donationRecencyCases: [SeedCase] = {
    let once = donating("e", [(t0 - 3 * day, "1.0")])
    let twice = donating("e", [(t0 - 10 * day, "1.0"), (t0 - 2 * day, "1.1")])
    let future = donating("e", [(t0 + hour, "1.0")])
    let never = context()
    let notDonatedFor = "RuleKit notDonatedFor: timeSinceLast >= s"
    let donatedWithin = "RuleKit donatedWithin: timeSinceLast <= s"
    let missing = "RuleKit: no donation, last == nil"
    return [
        .init(notDonatedFor, "lastDonation notWithin holds at exactly d", #"{"lastDonation": {"event": "e", "notWithin": "3d"}}"#, once, true),
        .init(
            notDonatedFor, "lastDonation notWithin 1 ms short of d", #"{"lastDonation": {"event": "e", "notWithin": "3d"}}"#, once, now: t0 - 1, false
        ),
        .init(notDonatedFor, "lastDonation notWithin past d", #"{"lastDonation": {"event": "e", "notWithin": "3d"}}"#, once, now: t0 + 1, true),
        .init(donatedWithin, "lastDonation within holds at exactly d", #"{"lastDonation": {"event": "e", "within": "3d"}}"#, once, true),
        .init(donatedWithin, "lastDonation within 1 ms past d", #"{"lastDonation": {"event": "e", "within": "3d"}}"#, once, now: t0 + 1, false),
        .init(donatedWithin, "lastDonation within reads the latest", #"{"lastDonation": {"event": "e", "within": "2d"}}"#, twice, true),
        .init(donatedWithin, "lastDonation dated ahead of now is within", #"{"lastDonation": {"event": "e", "within": "1s"}}"#, future, true),
        .init(
            notDonatedFor, "lastDonation dated ahead of now is not notWithin", #"{"lastDonation": {"event": "e", "notWithin": "0s"}}"#, future, false),
        .init(missing, "lastDonation never: within false", #"{"lastDonation": {"event": "e", "within": "3d"}}"#, never, false),
        .init(missing, "lastDonation never: notWithin true", #"{"lastDonation": {"event": "e", "notWithin": "3d"}}"#, never, true),
        .init(donatedWithin, "firstDonation within holds at exactly d", #"{"firstDonation": {"event": "e", "within": "10d"}}"#, twice, true),
        .init(donatedWithin, "firstDonation within 1 ms past d", #"{"firstDonation": {"event": "e", "within": "10d"}}"#, twice, now: t0 + 1, false),
        .init(donatedWithin, "firstDonation reads the earliest, not the latest", #"{"firstDonation": {"event": "e", "within": "5d"}}"#, twice, false),
        .init(notDonatedFor, "firstDonation notWithin holds at exactly d", #"{"firstDonation": {"event": "e", "notWithin": "10d"}}"#, twice, true),
        .init(
            notDonatedFor, "firstDonation notWithin 1 ms short", #"{"firstDonation": {"event": "e", "notWithin": "10d"}}"#, twice, now: t0 - 1, false),
        .init(missing, "firstDonation never: within false", #"{"firstDonation": {"event": "e", "within": "3d"}}"#, never, false),
        .init(missing, "firstDonation never: notWithin true", #"{"firstDonation": {"event": "e", "notWithin": "3d"}}"#, never, true),
        .init(
            "RuleKit donations.first: the earliest by date",
            "firstDonation after a backdated donation reads the backdated one", #"{"firstDonation": {"event": "e", "notWithin": "20d"}}"#,
            donating("e", [(t0 - 2 * day, "1.0"), (t0 - 20 * day, "0.9")]), true)
    ]
}()

/// RuleKit's idiom `$0.donations.last?.version != .current`: nil differs from every version, so "prompt once per
/// version" prompts a user who never donated; nothing else holds without a version to compare.
let donationVersionCases: [SeedCase] = {
    let idiom = "RuleKit donations.last?.version != .current"
    let never = context()
    let unversioned = donating("promptAttempt", [(t0 - day, nil)])
    let v2 = donating("promptAttempt", [(t0 - 2 * day, "1.9"), (t0 - day, "2.0")])
    var cases: [SeedCase] = [
        .init(
            idiom, "lastDonationVersion ne: never donated holds", #"{"lastDonationVersion": {"event": "promptAttempt", "ne": "$appVersion"}}"#, never,
            appVersion: "2.0", true),
        .init(
            idiom, "firstDonationVersion ne: never donated holds", #"{"firstDonationVersion": {"event": "promptAttempt", "ne": "2.0"}}"#, never, true),
        .init(
            idiom, "lastDonationVersion ne: donation without version holds", #"{"lastDonationVersion": {"event": "promptAttempt", "ne": "2.0"}}"#,
            unversioned, true),
        .init(
            idiom, "lastDonationVersion ne: same version (zero-padded) fails",
            #"{"lastDonationVersion": {"event": "promptAttempt", "ne": "$appVersion"}}"#, v2, appVersion: "2.0.0", false),
        .init(
            idiom, "lastDonationVersion ne: an older version holds", #"{"lastDonationVersion": {"event": "promptAttempt", "ne": "$appVersion"}}"#, v2,
            appVersion: "2.1", true),
        .init(
            idiom, "firstDonationVersion reads the first: 1.9 < 2.0", #"{"firstDonationVersion": {"event": "promptAttempt", "lt": "2.0"}}"#, v2, true),
        .init(
            idiom, "lastDonationVersion reads the last: 2.0 is not < 2.0", #"{"lastDonationVersion": {"event": "promptAttempt", "lt": "2.0"}}"#, v2,
            false),
        .init(
            idiom, "lastDonationVersion numeric per component: 2.0 > 1.10 is false",
            #"{"lastDonationVersion": {"event": "promptAttempt", "gt": "2.0.1"}}"#, v2, false),
        .init(
            "specd: a request without a version has nothing to compare", "lastDonationVersion ne $appVersion without a request version",
            #"{"lastDonationVersion": {"event": "promptAttempt", "ne": "$appVersion"}}"#, never, false)
    ]
    for op in ["eq", "lt", "lte", "gt", "gte"] {
        for (label, user) in [("never donated", never), ("no version", unversioned)] {
            cases.append(
                .init(
                    idiom, "lastDonationVersion \(op): \(label) does not hold",
                    #"{"lastDonationVersion": {"event": "promptAttempt", "\#(op)": "2.0"}}"#, user, false))
            cases.append(
                .init(
                    idiom, "firstDonationVersion \(op): \(label) does not hold",
                    #"{"firstDonationVersion": {"event": "promptAttempt", "\#(op)": "2.0"}}"#, user, false))
        }
    }
    return cases
}()

@Suite struct SeedBoundaryTests {
    @Test(arguments: donationRecencyCases)
    func lastAndFirstDonation_keepRuleKitsInclusiveAges(_ test: SeedCase) throws { try test.check() }

    @Test(arguments: donationVersionCases)
    func donationVersion_keepsRuleKitsOptionalVersionIdiom(_ test: SeedCase) throws { try test.check() }

    @Test(arguments: [
        (#"{"firstDonation": {"event": "e"}}"#, "/flags/f/when/firstDonation", "missing_field"),
        (#"{"firstDonation": {"event": "e", "within": "1d", "notWithin": "2d"}}"#, "/flags/f/when/firstDonation", "multiple_operators"),
        (#"{"firstDonation": {"event": "e", "within": "soon"}}"#, "/flags/f/when/firstDonation/within", "invalid_duration"),
        (#"{"firstDonation": {"event": "", "within": "1d"}}"#, "/flags/f/when/firstDonation/event", "wrong_type"),
        (#"{"firstDonation": {"event": "e", "notWithin": "1d", "by": 1}}"#, "/flags/f/when/firstDonation/by", "unknown_field"),
        (#"{"lastDonation": {"event": "e", "within": "1d", "notWithin": "2d"}}"#, "/flags/f/when/lastDonation", "multiple_operators")
    ])
    func firstDonation_invalid_reportsPathAndCode(spec: String, path: String, code: String) throws {
        let found = try diagnostics(#"{"flags": {"f": {"when": \#(spec)}}}"#)
        #expect(found.contains { $0.path == path && $0.code == code }, "\(found)")
    }

    @Test(arguments: [
        // within stops holding 1 ms after at + d; notWithin starts holding at at + d.
        (#"{"firstDonation": {"event": "e", "within": "10d"}}"#, t0 - 5 * day + 10 * day + 1),
        (#"{"firstDonation": {"event": "e", "notWithin": "10d"}}"#, t0 - 5 * day + 10 * day),
        (#"{"lastDonation": {"event": "e", "notWithin": "2d"}}"#, t0 - day + 2 * day),
        (#"{"lastDonation": {"event": "e", "within": "2d"}}"#, t0 - day + 2 * day + 1)
    ])
    func donationRecency_nextChange_isTheInstantTheAnswerFlips(spec: String, expected: Instant) throws {
        let compiled = try compileSpec(spec)
        let user = donating("e", [(t0 - 5 * day, "1.0"), (t0 - day, "1.1")])
        let change = try #require(compiled.nextChange(input(user)))
        #expect(change == expected)
        #expect(compiled.holds(input(user, change - 1)) == compiled.holds(input(user)))
        #expect(compiled.holds(input(user, change)) != compiled.holds(input(user)))
        #expect(compiled.nextChange(input(context())) == nil)
    }

    @Test func firstDonation_explain_namesTheNodeAndTheFirstInstant() throws {
        let user = donating("e", [(t0 - 5 * day, "1.0"), (t0 - day, "1.1")])
        let node = try compileSpec(#"{"firstDonation": {"event": "e", "within": "6d"}}"#).explain(input(user))
        #expect(node.node == "firstDonation")
        #expect(node.result == true)
        #expect(node.why?.contains("first at 2026-03-05T12:00:00Z") == true, "\(node.why ?? "")")
        #expect(node.why?.contains("changes in 86401s") == true, "\(node.why ?? "")")
    }
}
