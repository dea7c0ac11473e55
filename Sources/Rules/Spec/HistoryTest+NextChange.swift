extension HistoryTest {
    /// Exact for zones whose local time never runs back across a period boundary (every zone that moves its
    /// clocks away from midnight). The statistic depends only on the multiset of the window's counts, and that
    /// multiset changes only when a period holding donations leaves the window (at the start of the period
    /// `periods` later) or a future-dated donation's instant arrives; a rollover that drops an empty period and
    /// adds an empty one changes nothing. So the walk visits those instants only, in order, and stops at the
    /// first whose answer differs.
    func nextChange(_ input: EvaluationInput) -> Instant? {
        guard let recent = input.context.donations[event]?.recent, !recent.isEmpty else { return nil }
        let zone = input.context.timeZone
        let now = input.now
        var counts = counts(recent, now: now, zone: zone)
        let initial = holds(counts)
        enum Step {
            case leave(Int64)
            case enter(Int64)
        }
        var steps: [(at: Instant, step: Step)] = []
        let span = Int64(periods)
        for index in counts.keys {
            steps.append((period.start(of: Saturating.add(index, span), in: zone), .leave(index)))
        }
        for instant in recent where instant > now {
            let index = period.index(of: instant, in: zone)
            steps.append((instant, .enter(index)))
            steps.append((period.start(of: Saturating.add(index, span), in: zone), .leave(index)))
        }
        steps.sort { $0.at < $1.at }
        var position = 0
        while position < steps.count {
            let at = steps[position].at
            while position < steps.count, steps[position].at == at {
                switch steps[position].step {
                case .leave(let index): counts[index] = nil
                case .enter(let index): counts[index, default: 0] += 1
                }
                position += 1
            }
            if at > now, holds(counts) != initial { return at }
        }
        return nil
    }
}
