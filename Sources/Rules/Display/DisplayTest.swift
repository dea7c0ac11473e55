/// What a `display` spec node tests of another flag's display state (docs/rules.md, "display").
public enum DisplayTest: Sendable, Equatable {
    /// `{"shownCount": {"lt": 2}}`: the count compares (never shown: 0).
    case shownCount(Comparison)
    /// `{"shownWithin": "1d"}`: `now - lastShown <= window`, inclusive like `lastDonation.within` (never shown: false).
    case shownWithin(Milliseconds)

    public func holds(_ state: DisplayState?, now: Instant) -> Bool {
        switch self {
        case .shownCount(let comparison): return comparison.holds(state?.shownCount ?? 0)
        case .shownWithin(let window):
            guard let last = state?.lastShown else { return false }
            return now - last <= window
        }
    }

    /// `shownWithin` stops holding one millisecond after `lastShown + window`; a count changes only by a write.
    func nextChange(_ state: DisplayState?, now: Instant) -> Instant? {
        guard case .shownWithin(let window) = self, let last = state?.lastShown else { return nil }
        let end = last + window + 1
        return end > now ? end : nil
    }

    func why(_ flag: String, _ state: DisplayState?, now: Instant) -> String {
        switch self {
        case .shownCount(let comparison):
            return "\(flag) shown \(state?.shownCount ?? 0) times, \(comparison.text)"
        case .shownWithin(let window):
            guard let last = state?.lastShown else { return "\(flag) never shown" }
            let remaining = Saturating.subtract(Saturating.add(window, 1), now - last)
            let state = remaining > 0 ? "; changes in \(Saturating.add(remaining, 999) / 1000)s" : ""
            return "\(flag) last shown at \(last), within \(window / 1000)s\(state)"
        }
    }
}
