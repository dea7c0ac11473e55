/// `{"cooldown": {"event": "k", "day": "1h", "night": "8h", "nightHours": [22, 7]}}`: a cooldown whose length is
/// chosen by the local hour of *now* (docs/rules.md, "cooldown by time of day"). `nightHours` reads like `hourIn`:
/// both hours inclusive, wrapping midnight (`[22, 7]` is 22:00–07:59). Zone: the node's `tz`, else the user's, else UTC.
public struct DayNightCooldown: Sendable, Equatable {
    public let event: String
    public let day: Milliseconds
    public let night: Milliseconds
    public let nightFrom: Int
    public let nightTo: Int
    public let timeZone: String?

    public init(event: String, day: Milliseconds, night: Milliseconds, nightFrom: Int, nightTo: Int, timeZone: String?) {
        self.event = event
        self.day = day
        self.night = night
        self.nightFrom = nightFrom
        self.nightTo = nightTo
        self.timeZone = timeZone
    }

    func zone(_ input: EvaluationInput) -> String? { timeZone ?? input.context.timeZone }

    func isNight(_ instant: Instant, in zone: String?) -> Bool {
        let hour = TimeZones.local(instant, in: zone).hour
        return nightFrom <= nightTo ? (hour >= nightFrom && hour <= nightTo) : (hour >= nightFrom || hour <= nightTo)
    }

    func length(at instant: Instant, in zone: String?) -> Milliseconds { isNight(instant, in: zone) ? night : day }

    func holds(_ input: EvaluationInput) -> Bool {
        guard let at = input.context.event(forKey: event) else { return true }
        return input.now - at >= length(at: input.now, in: zone(input))
    }

    /// Exact. The answer `now - at >= length(now)` moves only when the elapsed time reaches the shorter or the
    /// longer length, or when a day/night boundary changes which length applies:
    /// - holding now, it can stop only by crossing into the longer length's hours before that length has passed;
    /// - not holding, it cannot hold before `at + shorter`; from there (in the longer length's hours) it holds at
    ///   `at + longer` or at the next boundary into the shorter length's hours, whichever comes first.
    func nextChange(_ input: EvaluationInput) -> Instant? {
        guard let at = input.context.event(forKey: event) else { return nil }
        let zone = zone(input)
        let now = input.now
        let shorter = min(day, night)
        let longer = max(day, night)
        let holdsAt = { (instant: Instant) in instant - at >= length(at: instant, in: zone) }
        if holdsAt(now) {
            guard now - at < longer, let boundary = nextBoundary(after: now, zone: zone) else { return nil }
            return boundary < at + longer ? boundary : nil
        }
        var from = now
        let shortEnd = at + shorter
        if shortEnd > now {
            if holdsAt(shortEnd) { return shortEnd }
            from = shortEnd
        }
        let longEnd = at + longer
        guard let boundary = nextBoundary(after: from, zone: zone) else { return longEnd > now ? longEnd : nil }
        return min(boundary, longEnd)
    }

    /// The next instant after `instant` at which night turns to day or day to night (DST-aware); `nil` when the
    /// night covers all 24 hours or none.
    func nextBoundary(after instant: Instant, zone: String?) -> Instant? {
        let test = { (candidate: Instant) in isNight(candidate, in: zone) }
        return Spec.nextLocalBoundary(after: instant, unit: 3_600_000, zone: zone, limit: 50, changes: test)
    }

    func why(_ input: EvaluationInput) -> String {
        let zone = zone(input)
        let night = isNight(input.now, in: zone)
        let applied = length(at: input.now, in: zone)
        let head =
            "local hour \(TimeZones.local(input.now, in: zone).hour) in \(zone ?? "UTC") is \(night ? "night" : "day"), cooldown \(applied / 1000)s"
        guard let at = input.context.event(forKey: event) else { return head + "; \(event) never happened" }
        let remaining = Saturating.subtract(applied, input.now - at)
        return head + "; \(event) at \(at)" + (remaining > 0 ? "; remaining: \(Saturating.add(remaining, 999) / 1000)s" : "")
    }

    var inputs: Set<ContextInput> { timeZone == nil ? [.event(event), .timeZone] : [.event(event)] }
}
