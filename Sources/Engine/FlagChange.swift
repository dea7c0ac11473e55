import Rules

/// One flag whose answer a write changed.
public struct FlagChange: Sendable {
    public let key: String
    public let current: Evaluation
    public let previous: Evaluation

    public var json: JSONValue { ["key": .string(key), "value": current.value ?? .null, "previous": previous.value ?? .null] }

    /// `json`'s bytes, written straight into an answer's body (a donation's, on every write).
    public func write(into out: inout [UInt8]) {
        JSONWriter.append(#"{"key":"#, into: &out)
        JSONWriter.writeString(key, into: &out)
        JSONWriter.append(#","value":"#, into: &out)
        JSONWriter.write(current.value ?? .null, into: &out)
        JSONWriter.append(#","previous":"#, into: &out)
        JSONWriter.write(previous.value ?? .null, into: &out)
        out.append(UInt8(ascii: "}"))
    }

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
