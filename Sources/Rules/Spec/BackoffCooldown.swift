import Foundation

/// `{"cooldown": {"event": "k", "for": "1h", "backoff": {"counter": "nudges", "factor": 2, "max": "30d"}}}`:
/// exponential backoff (docs/rules.md, "cooldown with backoff"). The effective cooldown is `for × factor^counter`,
/// capped at `max`; it holds when the event is at least that old, or never happened.
public struct BackoffCooldown: Sendable, Equatable {
    /// A factor of at least 1: an integer (exact integer milliseconds) or a fraction (double precision).
    public enum Factor: Sendable, Equatable {
        case integer(Int64)
        case fraction(Double)
    }

    public let event: String
    public let base: Milliseconds
    public let counter: String
    public let factor: Factor
    /// The longest effective cooldown; at least `base`.
    public let cap: Milliseconds

    public init(event: String, base: Milliseconds, counter: String, factor: Factor, cap: Milliseconds) {
        self.event = event
        self.base = base
        self.counter = counter
        self.factor = factor
        self.cap = cap
    }

    /// The effective cooldown for a counter value. A negative counter reads as 0: the cooldown is never shorter
    /// than `for`. Saturating throughout: a counter of Int.max is a cooldown of `max`, never a trap.
    public func length(counter value: Int) -> Milliseconds {
        let exponent = max(value, 0)
        guard base > 0, exponent > 0 else { return min(base, cap) }
        switch factor {
        case .integer(let multiplier):
            guard multiplier > 1 else { return min(base, cap) }
            var length = base
            // At most 63 rounds: the length at least doubles each time and stops at the cap.
            for _ in 0..<exponent {
                length = Saturating.multiply(length, multiplier)
                if length >= cap { return cap }
            }
            return length
        case .fraction(let multiplier):
            // pow of a huge exponent is +infinity, which Saturating.int64 clamps; base > 0 so no 0 × ∞.
            let length = Double(base) * pow(multiplier, Double(exponent))
            return min(Saturating.int64(length.rounded(.down)), cap)
        }
    }

    func length(_ input: EvaluationInput) -> Milliseconds { length(counter: input.context.counter(forKey: counter) ?? 0) }

    func holds(_ input: EvaluationInput) -> Bool {
        guard let at = input.context.event(forKey: event) else { return true }
        return input.now - at >= length(input)
    }

    /// Exact: the counter cannot change without a write, so the cooldown ends at `at + length`.
    func nextChange(_ input: EvaluationInput) -> Instant? {
        guard let at = input.context.event(forKey: event) else { return nil }
        let end = at + length(input)
        return end > input.now ? end : nil
    }

    func why(_ input: EvaluationInput) -> String {
        let value = input.context.counter(forKey: counter) ?? 0
        let effective = length(counter: value)
        let head = "\(counter) = \(value), cooldown \(effective / 1000)s"
        guard let at = input.context.event(forKey: event) else { return head + "; \(event) never happened" }
        let remaining = Saturating.subtract(effective, input.now - at)
        return head + "; \(event) at \(at)" + (remaining > 0 ? "; remaining: \(Saturating.add(remaining, 999) / 1000)s" : "")
    }

    var inputs: Set<ContextInput> { [.event(event), .counter(counter)] }
}
