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
    /// changed are evaluated (`affected`, when the caller has them already: `RuleSet.flagsAffected(from:to:at:)`).
    static func between(
        _ before: UserContext?, _ after: UserContext?, user: String, in ruleSet: RuleSet, now: Instant,
        appVersion: String?, affected: AffectedFlags? = nil
    ) -> [FlagChange] {
        between(
            before, after, in: ruleSet, now: now, request: RequestAttributes(userID: user, appVersion: appVersion),
            affected: affected)
    }

    /// The same, for a request whose attributes (and parsed version) the caller has made already.
    static func between(
        _ before: UserContext?, _ after: UserContext?, in ruleSet: RuleSet, now: Instant, request: RequestAttributes,
        affected: AffectedFlags? = nil
    ) -> [FlagChange] {
        let old = EvaluationInput(context: before ?? UserContext(), now: now, request: request)
        let new = EvaluationInput(context: after ?? UserContext(), now: now, request: request)
        return (affected ?? ruleSet.flagsAffected(from: before, to: after, at: now)).compactMap { flag in change(of: flag, old, new) }
    }

    /// The same write's changes for another app version: a flag that reads no app version changed (or did not)
    /// exactly as it did for the write's own version, so only the flags that read one are evaluated again.
    /// `written` holds the write's own changes among `affected`, in the same order.
    static func between(
        _ before: UserContext?, _ after: UserContext?, user: String, in ruleSet: RuleSet, now: Instant,
        appVersion: String?, affected: AffectedFlags, written: [FlagChange]
    ) -> [FlagChange] {
        // A closure, not the method as a value: that copied the whole set into its context.
        guard affected.contains(where: { ruleSet.readsAppVersion($0) }) else { return written }
        let request = RequestAttributes(userID: user, appVersion: appVersion)
        let old = EvaluationInput(context: before ?? UserContext(), now: now, request: request)
        let new = EvaluationInput(context: after ?? UserContext(), now: now, request: request)
        var changes: [FlagChange] = []
        var next = 0
        for flag in affected {
            var same: FlagChange?
            if next < written.count, written[next].key.bytesEqual(flag.key) {
                same = written[next]
                next += 1
            }
            if ruleSet.readsAppVersion(flag) {
                if let change = change(of: flag, old, new) { changes.append(change) }
            } else if let same {
                changes.append(same)
            }
        }
        return changes
    }

    /// `old` and `new` are one request's inputs at one instant: only the context differs (`Flag.answersAlike`).
    private static func change(of flag: Flag, _ old: EvaluationInput, _ new: EvaluationInput) -> FlagChange? {
        if flag.answersAlike(old, new) { return nil }
        let previous = flag.evaluate(old)
        let current = flag.evaluate(new)
        guard previous.value != current.value || previous.variant != current.variant else { return nil }
        return FlagChange(key: flag.key, current: current, previous: previous)
    }
}
