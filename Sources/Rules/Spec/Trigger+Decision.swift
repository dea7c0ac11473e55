extension RuleSet {
    /// Which triggers fire now for a donation of `event` (docs/rules.md, "Triggers"): listening to it, no delay
    /// (delayed ones are re-checked when their delay ends), spec holding on the new state, not throttled by the last
    /// fire in the user's zone, and in edge mode not already holding before.
    public func immediateFires(
        event: String, previous: UserContext?, current: UserContext, now: Instant,
        request: RequestAttributes
    ) -> [Trigger] {
        listeners(of: event).filter { trigger in
            trigger.delay == nil && trigger.shouldFire(previous: previous, current: current, now: now, request: request)
        }
    }
}

extension Trigger {
    public func shouldFire(previous: UserContext?, current: UserContext, now: Instant, request: RequestAttributes) -> Bool {
        // The throttle first where it is cheap (no fire yet, or a user in UTC: arithmetic): a trigger that fired
        // once is throttled for the whole period while its event keeps being donated, and the spec is a tree to
        // evaluate. In another zone the throttle is Foundation's calendar (some 6 k instructions), so the spec
        // goes first there. Both tests are pure: the order changes no answer.
        let throttleFirst = current.triggerFires[key] == nil || current.timeZone == nil || current.timeZone == "UTC"
        if throttleFirst, isThrottled(current, now: now) { return false }
        guard when.holds(EvaluationInput(context: current, now: now, request: request)) else { return false }
        if edge, let previous, when.holds(EvaluationInput(context: previous, now: now, request: request)) { return false }
        return throttleFirst || !isThrottled(current, now: now)
    }

    /// Throttled while the last fire plus the period, counted in the user's zone, is still ahead.
    public func isThrottled(_ context: UserContext, now: Instant) -> Bool {
        guard let throttle, let last = context.triggerFire(forKey: key) else { return false }
        return now < TimeZones.add(throttle, to: last, in: context.timeZone)
    }
}
