/// A compiled, validated condition (docs/rules.md, "Spec nodes"). References are resolved and rollouts know their flag,
/// so evaluation is a walk with no lookups in the rule set.
public indirect enum Spec: Sendable, Equatable {
    case all([Spec])
    case any([Spec])
    case none([Spec])
    case not(Spec)
    case atLeast(Int, [Spec])
    case ref(String, Spec)
    case always(Bool)
    case flag(key: String, equals: Bool, ifMissing: Bool)
    case counter(key: String, Comparison)
    case maxCount(counter: String, limit: Int)
    /// `timeSince` and `cooldown`: the event is at least `duration` old, or never happened.
    case elapsedSince(operator: String, event: String, duration: Milliseconds)
    case sinceLaunch(Milliseconds)
    case eventExists(String)
    case eventDate(event: String, before: Instant?, after: Instant?)
    case dateRange(from: Instant?, to: Instant?)
    case hourIn(from: Int, to: Int, timeZone: String?)
    case weekday(Set<Int>, timeZone: String?)
    case segment(String)
    case segmentsAny([String])
    case segmentsAll([String])
    case subscription(String)
    case attribute(key: String, AttributeTest)
    case donations(event: String, Comparison, within: Milliseconds?)
    /// `lastDonation` / `firstDonation` (`first`): the donation is at most `window` old (`inside`), or at least
    /// `window` old (`!inside`): RuleKit's donatedWithin / notDonatedFor, both inclusive.
    case donationRecency(event: String, first: Bool, window: Milliseconds, inside: Bool)
    case donationVersion(event: String, first: Bool, VersionTest)
    case appVersion(VersionTest)
    case rollout(basisPoints: Int, prefix: String, by: String?)
    /// Another flag, compiled in (as `ref` inlines its spec), answers as the test asks for the same user and instant.
    case prerequisite(Flag, PrerequisiteTest)
    /// `cooldown` with `backoff`: the length grows with a counter.
    case backoffCooldown(BackoffCooldown)
    /// `cooldown` with `day` / `night` lengths chosen by the local hour.
    case dayNightCooldown(DayNightCooldown)
    /// `sinceLaunch` in its object form, with an explicit comparison.
    case launchAge(LaunchAgeTest)
    /// `attr` with `between` or `eq` + `tolerance`: numbers only.
    case number(key: String, NumberTest)
    /// `counter` / `attr` with `{"$counter": k}` or `{"$attr": k}` on the right-hand side.
    case comparison(ContextComparison)
    /// `history`: a statistic over donations per local calendar period.
    case history(HistoryTest)
    /// `{"display": {"flag": "k", ...}}`: a test of flag `k`'s display state (docs/rules.md, "display").
    case display(flag: String, DisplayTest)
}
