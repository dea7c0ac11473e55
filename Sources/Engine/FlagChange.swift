import Rules

/// One flag whose answer a write changed.
public struct FlagChange: Sendable {
    public let key: String
    public let current: Evaluation
    public let previous: Evaluation

    public var json: JSONValue { ["key": .string(key), "value": current.value ?? .null, "previous": previous.value ?? .null] }

    /// The flags whose answer differs between two states of one user. Only flags that read something the write
    /// changed are evaluated.
    static func between(
        _ before: UserContext?, _ after: UserContext?, user: String, in ruleSet: RuleSet, now: Instant,
        appVersion: String?
    ) -> [FlagChange] {
        let request = RequestAttributes(userID: user, appVersion: appVersion)
        let old = EvaluationInput(context: before ?? UserContext(), now: now, request: request)
        let new = EvaluationInput(context: after ?? UserContext(), now: now, request: request)
        return ruleSet.flagsAffected(from: before, to: after).compactMap { flag in
            let previous = flag.evaluate(old)
            let current = flag.evaluate(new)
            guard previous.value != current.value || previous.variant != current.variant else { return nil }
            return FlagChange(key: flag.key, current: current, previous: previous)
        }
    }
}
