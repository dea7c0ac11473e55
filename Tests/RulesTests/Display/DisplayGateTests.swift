import Rules
import Testing

/// TipKit's rules on one user: display counts, invalidation, group frequency and order.
@Suite struct DisplayGateTests {
    /// Three tips in an ordered, daily group (maxCount 2, invalidated on action), and a fourth alone.
    static let onboarding = try! ruleSet(
        #"{"groups": {"onboarding": {"frequency": "daily", "order": "ordered"}, "loose": {"frequency": "daily"}}, "flags": {"#
            + #""tip-a": {"when": {"always": true}, "display": {"maxCount": 2, "group": "onboarding", "invalidateOn": ["actionPerformed"]}}, "#
            + #""tip-b": {"when": {"always": true}, "display": {"maxCount": 2, "group": "onboarding", "invalidateOn": ["actionPerformed"]}}, "#
            + #""tip-c": {"when": {"always": true}, "display": {"maxCount": 2, "group": "onboarding", "invalidateOn": ["actionPerformed"]}}, "#
            + #""x": {"when": {"always": true}, "display": {"group": "loose", "invalidateOn": ["dismissed"]}}, "#
            + #""y": {"when": {"sinceLaunch": "3d"}, "display": {"group": "loose"}}}}"#)

    static func record(_ user: inout UserContext, _ key: String, _ event: DisplayState.Event, at: Instant, in set: RuleSet = onboarding) {
        let rule = set.flags[key]!.display!
        user.display[key, default: DisplayState()].record(event, at: at, maxCount: rule.maxCount, invalidates: rule.invalidateOn.contains(event))
    }

    @Test func maxCount_invalidatesAtTheLimit() {
        var user = context()
        Self.record(&user, "tip-a", .shown, at: t0)
        #expect(Self.onboarding.evaluate("tip-a", input(user)).value == true)
        Self.record(&user, "tip-a", .shown, at: t0 + minute)
        let answer = Self.onboarding.evaluate("tip-a", input(user))
        #expect(answer.value == false)
        #expect(answer.reason == .invalidated)
        #expect(user.display["tip-a"]?.invalidated == DisplayState.Invalidation(reason: .displayCountExceeded, at: t0 + minute))
    }

    @Test(arguments: [(DisplayState.Event.dismissed, true), (.actionPerformed, false)])
    func invalidateOn_onlyTheListedEvents(event: DisplayState.Event, invalidates: Bool) {
        var user = context()
        Self.record(&user, "x", event, at: t0)
        #expect((Self.onboarding.evaluate("x", input(user)).reason == .invalidated) == invalidates)
    }

    @Test func invalidation_isKept_whateverComesLater() {
        var state = DisplayState()
        state.record(.actionPerformed, at: t0, maxCount: nil, invalidates: true)
        state.record(.dismissed, at: t0 + 1, maxCount: nil, invalidates: true)
        state.record(.shown, at: t0 + 2, maxCount: 1, invalidates: false)
        #expect(state.invalidated == DisplayState.Invalidation(reason: .actionPerformed, at: t0))
        #expect(state.shownCount == 1)
    }

    /// The window rolls from the last show: eligible again exactly at `lastShown + window`, in any zone.
    @Test(arguments: ["UTC", "Europe/Paris", "America/New_York", "Pacific/Kiritimati"])
    func frequencyWindow_endsExactlyAtLastShownPlusWindow(zone: String) {
        // 2026-03-08 is New York's spring-forward day: a fixed window ignores it.
        let shown = at("2026-03-07T20:30:00Z")
        var user = context {
            $0.timeZone = zone
            $0.launchedAt = at("2026-01-01T00:00:00Z")
        }
        Self.record(&user, "x", .shown, at: shown)
        let end = shown + day
        #expect(Self.onboarding.evaluate("y", input(user, end - 1)).value == false)
        #expect(Self.onboarding.evaluate("y", input(user, end - 1)).reason == .defaultValue)
        #expect(Self.onboarding.evaluate("x", input(user, end - 1)).value == true)
        #expect(Self.onboarding.evaluate("y", input(user, end)).value == true)
        #expect(Self.onboarding.nextChange("y", input(user, shown)) == end)
    }

    @Test func frequencyWindow_theLatestShownStaysEligible_andTiesLeaveBoth() {
        var user = context { $0.launchedAt = at("2026-01-01T00:00:00Z") }
        Self.record(&user, "x", .shown, at: t0)
        Self.record(&user, "y", .shown, at: t0 + hour)
        #expect(Self.onboarding.evaluate("x", input(user, t0 + 2 * hour)).value == false)
        #expect(Self.onboarding.evaluate("y", input(user, t0 + 2 * hour)).value == true)
        var tied = context { $0.launchedAt = at("2026-01-01T00:00:00Z") }
        Self.record(&tied, "x", .shown, at: t0)
        Self.record(&tied, "y", .shown, at: t0)
        #expect(Self.onboarding.evaluate("x", input(tied, t0 + hour)).value == true)
        #expect(Self.onboarding.evaluate("y", input(tied, t0 + hour)).value == true)
    }

    @Test func ordered_aLaterTipWaitsForTheEarlierOnesToBeInvalidated() {
        var user = context()
        #expect(Self.onboarding.evaluate("tip-a", input(user)).value == true)
        #expect(Self.onboarding.evaluate("tip-b", input(user)).value == false)
        Self.record(&user, "tip-a", .actionPerformed, at: t0)
        #expect(Self.onboarding.evaluate("tip-b", input(user)).value == true)
        #expect(Self.onboarding.evaluate("tip-c", input(user)).value == false)
        #expect(Self.onboarding.nextChange("tip-c", input(user)) == nil)
    }

    /// A simulated week: the app shows whichever onboarding tip answers true, once a day at 09:00, and the user acts
    /// on tip-b the second time it sees it. The daily window and the order make one tip a day, in order.
    @Test func onboardingWeek_oneTipADayInOrder() {
        var user = context()
        let monday = at("2026-03-09T09:00:00Z")
        var shownEachDay: [String] = []
        for dayIndex in 0..<7 {
            let now = monday + Int64(dayIndex) * day
            let eligible = ["tip-a", "tip-b", "tip-c"].filter { Self.onboarding.evaluate($0, input(user, now)).value == true }
            // At most one tip of the group is eligible once any was shown.
            #expect(eligible.count <= 1 || dayIndex == 0)
            guard let tip = eligible.first else {
                shownEachDay.append("-")
                continue
            }
            Self.record(&user, tip, .shown, at: now)
            if tip == "tip-b", user.display["tip-b"]?.shownCount == 2 { Self.record(&user, tip, .actionPerformed, at: now + minute) }
            shownEachDay.append(tip)
        }
        #expect(shownEachDay == ["tip-a", "tip-a", "tip-b", "tip-b", "tip-c", "tip-c", "-"])
        #expect(user.display["tip-b"]?.invalidated?.reason == .displayCountExceeded)
    }

    @Test func globalGroup_spansEveryDisplayFlag() throws {
        let set = try ruleSet(
            #"{"groups": {"*": {"frequency": "weekly"}, "g": {"frequency": "immediate"}}, "flags": {"#
                + #""a": {"when": {"always": true}, "display": {"group": "g"}}, "b": {"when": {"always": true}, "display": {}}, "#
                + #""plain": {"when": {"always": true}}}}"#)
        var user = context()
        Self.record(&user, "a", .shown, at: t0, in: set)
        #expect(set.evaluate("b", input(user, t0 + 6 * day)).value == false)
        #expect(set.evaluate("b", input(user, t0 + 7 * day)).value == true)
        #expect(set.evaluate("plain", input(user, t0 + day)).value == true)
        #expect(set.nextChange("b", input(user, t0)) == t0 + 7 * day)
    }

    /// Held back by the window, a flag whose rules do not hold then either changes at the rules' own next change.
    @Test func nextChange_pastTheWindow_whenTheRulesDoNotHoldThen() {
        var user = context { $0.launchedAt = t0 }
        Self.record(&user, "x", .shown, at: t0)
        // y needs 3 days since launch: the window ends at +1d with y still false, so the change is at +3d.
        #expect(Self.onboarding.nextChange("y", input(user)) == t0 + 3 * day)
        #expect(Self.onboarding.evaluate("y", input(user, t0 + 3 * day - 1)).value == false)
        #expect(Self.onboarding.evaluate("y", input(user, t0 + 3 * day)).value == true)
    }

    @Test func explain_saysWhyTheGateHolds() throws {
        var user = context()
        Self.record(&user, "x", .shown, at: t0)
        let tree = Self.onboarding.flags["y"]!.explain(input(user, t0 + hour))
        let display = try #require(tree["display"])
        #expect(display["result"] == false)
        let why = try #require(display["why"]?.stringValue)
        #expect(why.contains("'x' was shown last"))
        #expect(why.contains("remaining: 82800s"))
        Self.record(&user, "x", .dismissed, at: t0 + hour)
        #expect(
            Self.onboarding.flags["x"]!.explain(input(user, t0 + hour))["display"]?["why"]?.stringValue?.contains("invalidated (dismissed)") == true)
    }

    /// Client instants at the ends of the range and counts at Int.max: saturating, never a trap.
    @Test(arguments: [Int64.min, Int64.min + 1, -1, 0, Int64.max - 1, Int64.max])
    func extremeInstantsAndCounts_neverTrap(milliseconds: Int64) {
        let extreme = Instant(milliseconds: milliseconds)
        var user = context()
        Self.record(&user, "x", .shown, at: extreme)
        user.display["tip-a"] = DisplayState(shownCount: .max, firstShown: extreme, lastShown: extreme)
        user.display["tip-a"]?.record(.shown, at: extreme, maxCount: .max, invalidates: false)
        #expect(user.display["tip-a"]?.shownCount == .max)
        for now in [extreme, t0, Instant(milliseconds: .max), Instant(milliseconds: .min)] {
            for key in Self.onboarding.flagKeys {
                _ = Self.onboarding.evaluate(key, input(user, now))
                _ = Self.onboarding.nextChange(key, input(user, now))
                _ = Self.onboarding.flags[key]!.explain(input(user, now))
            }
        }
    }
}
