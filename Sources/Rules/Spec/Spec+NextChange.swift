extension RuleSet {
    /// The earliest instant after `input.now` at which this flag's answer could change with no write: a cooldown
    /// ending, a window sliding, a date range opening or closing, an hour or weekday boundary in the user's zone.
    /// `nil` when only a write can change it.
    public func nextChange(_ key: String, _ input: EvaluationInput) -> Instant? {
        flags[key]?.nextChange(input)
    }
}

extension Flag {
    public func nextChange(_ input: EvaluationInput) -> Instant? {
        guard enabled else { return nil }
        if let display { return displayNextChange(display, input) }
        return bodyNextChange(input)
    }

    /// The next change of the rules alone, the display gate aside.
    func bodyNextChange(_ input: EvaluationInput) -> Instant? {
        switch body {
        case .boolean(let spec):
            return spec.nextChange(input)
        case .flagd:
            // JSON Logic may read $flagd.timestamp, but flagd gives no next-change notion: writes, reloads and the
            // attributes it reads expiring only.
            return expiryChange(input)
        case .cases(let cases, _):
            // Only cases up to the one that matched can change the answer: later ones are not consulted.
            var earliest: Instant?
            for candidate in cases {
                earliest = Spec.earlier(earliest, candidate.when.nextChange(input))
                if candidate.when.holds(input) { break }
            }
            return earliest
        case .pick(let pick):
            return pick.nextChange(input)
        }
    }
}

extension Spec {
    static func earlier(_ a: Instant?, _ b: Instant?) -> Instant? {
        guard let a else { return b }
        guard let b else { return a }
        return min(a, b)
    }

    /// Conservative for combinators (the earliest change of any child); exact for each clock-dependent leaf.
    public func nextChange(_ input: EvaluationInput) -> Instant? {
        let now = input.now
        let context = input.context
        func future(_ instant: Instant?) -> Instant? { instant.flatMap { $0 > now ? $0 : nil } }
        switch self {
        case .all(let children), .any(let children), .none(let children), .atLeast(_, let children):
            return children.reduce(nil) { Spec.earlier($0, $1.nextChange(input)) }
        case .not(let child), .ref(_, let child):
            return child.nextChange(input)
        case .elapsedSince(_, let event, let duration):
            return future(context.event(forKey: event).map { $0 + duration })
        case .sinceLaunch(let duration):
            return future(context.launchedAt.map { $0 + duration })
        case .dateRange(let from, let to):
            // `to` is inclusive: the range closes one millisecond after it.
            return Spec.earlier(future(from), future(to.map { $0 + 1 }))
        case .donationRecency(let event, let first, let window, let inside):
            let summary = context.donations[event]
            guard let at = first ? summary?.first?.at : summary?.last?.at else { return nil }
            // `within` stops holding one millisecond after `at + window`; `notWithin` starts holding at it.
            return future(inside ? at + window + 1 : at + window)
        case .donations(let event, let comparison, let within?):
            guard let summary = context.donations[event] else { return nil }
            return Spec.nextWindowChange(summary.recent, window: within, comparison: comparison, now: now)
        case .hourIn(let from, let to, let zone):
            let zone = zone ?? context.timeZone
            let test = { (instant: Instant) -> Bool in
                let hour = TimeZones.local(instant, in: zone).hour
                return from <= to ? (hour >= from && hour <= to) : (hour >= from || hour <= to)
            }
            return Spec.nextLocalBoundary(after: now, unit: 3_600_000, zone: zone, limit: 50, changes: test)
        case .weekday(let days, let zone):
            let zone = zone ?? context.timeZone
            let test = { (instant: Instant) in days.contains(TimeZones.local(instant, in: zone).isoWeekday) }
            return Spec.nextLocalBoundary(after: now, unit: 86_400_000, zone: zone, limit: 9, changes: test)
        case .always, .flag, .counter, .maxCount, .eventExists, .eventDate, .segment, .segmentsAny, .segmentsAll,
            .subscription, .attribute, .donations, .donationVersion, .appVersion, .rollout:
            // No clock in these leaves: only a value they read expiring can change them.
            return expiryChange(input)
        case .prerequisite(let flag, let test):
            return Spec.prerequisiteChange(flag, test, input)
        case .backoffCooldown(let cooldown): return cooldown.nextChange(input)
        case .dayNightCooldown(let cooldown): return cooldown.nextChange(input)
        case .launchAge(let test): return test.nextChange(input)
        case .number, .comparison:
            // Attribute readers with no clock of their own: only an expiring value can change them.
            return expiryChange(input)
        case .history(let test): return test.nextChange(input)
        case .display(let flag, let test):
            return test.nextChange(context.display(forKey: flag), now: now)
        }
    }

    /// Walks local hour or day boundaries (DST-aware: each boundary is placed with the offset in force there) until
    /// the test's answer differs from now.
    static func nextLocalBoundary(after now: Instant, unit: Int64, zone: String?, limit: Int, changes test: (Instant) -> Bool) -> Instant? {
        let current = test(now)
        var cursor = now
        for _ in 0..<limit {
            // Saturating throughout: `now` is any instant a request may name, and the ends of the range must not trap.
            let offset = TimeZones.offset(zone, at: cursor) * 1000
            let local = Saturating.add(cursor.milliseconds, offset)
            let floor = local / unit - (local % unit < 0 ? 1 : 0)
            let boundary = Saturating.add(Saturating.multiply(floor, unit), unit)
            var candidate = Instant(milliseconds: Saturating.subtract(boundary, offset))
            let offsetThere = TimeZones.offset(zone, at: candidate) * 1000
            if offsetThere != offset {
                let realigned = Instant(milliseconds: Saturating.subtract(boundary, offsetThere))
                if realigned > cursor { candidate = realigned }
            }
            if test(candidate) != current { return candidate }
            cursor = candidate
        }
        return nil
    }

    /// When a windowed donation count next crosses its comparison: donations leave the window one millisecond
    /// after `at + window`, future-dated ones enter at `at`.
    static func nextWindowChange(_ recent: DonationHistory, window: Milliseconds, comparison: Comparison, now: Instant) -> Instant? {
        var changes: [(at: Instant, delta: Int)] = []
        var count = 0
        for instant in recent {
            if instant > now {
                changes.append((instant, 1))
                changes.append((instant + window + 1, -1))
            } else if now - instant <= window {
                count += 1
                changes.append((instant + window + 1, -1))
            }
        }
        let current = comparison.holds(count)
        changes.sort { $0.at < $1.at }
        var index = 0
        while index < changes.count {
            let at = changes[index].at
            while index < changes.count, changes[index].at == at {
                count += changes[index].delta
                index += 1
            }
            if comparison.holds(count) != current { return at }
        }
        return nil
    }
}
