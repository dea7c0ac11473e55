import Rules
import Synchronization

/// Served answers counted by flag key (`specd_evaluations_total{flag="…"}`), across rule reloads.
///
/// The count is on the read path, so it costs one relaxed atomic add: each served rule set carries a `Counts`, an
/// array of tallies indexed by `Flag.position`, built once when the set goes live. A key keeps its tally for the
/// life of the process, so its counter never goes back when a reload renumbers or drops flags (a dropped flag's
/// series stays at its last value). Keys come from the operator's rules, never from a request: the number of
/// series is bounded by the flags ever loaded.
public final class EvaluationLedger: Sendable {
    /// One counter. A class, so a rule set's `Counts` and the ledger share it.
    final class Tally: Sendable {
        let value = Atomic<Int>(0)
    }

    /// The tallies of one rule set's flags, by position.
    public final class Counts: Sendable {
        let tallies: [Tally]

        init(_ tallies: [Tally]) { self.tallies = tallies }

        /// Counts `amount` answers of the flag at `position` (a position outside the set counts nothing).
        @inline(__always)
        public func count(_ position: Int, by amount: Int = 1) {
            guard tallies.indices.contains(position) else { return }
            tallies[position].value.wrappingAdd(amount, ordering: .relaxed)
        }

        /// One answer of every flag of the set (a bulk answer).
        public func countEach() {
            for tally in tallies { tally.value.wrappingAdd(1, ordering: .relaxed) }
        }
    }

    /// Keys as bytes (two canonically equal keys are two flags), in first-seen order for a stable page.
    private let tallies = Mutex<(byKey: [ByteKey: Tally], order: [(key: String, tally: Tally)])>(([:], []))

    public init() {}

    /// The tallies of `rules`' flags, by position: a key seen before gets its old tally back.
    public func counts(for rules: RuleSet) -> Counts {
        tallies.withLock { state in
            Counts(
                rules.declaredFlags.map { flag in
                    let key = ByteKey(flag.key)
                    if let tally = state.byKey[key] { return tally }
                    let tally = Tally()
                    state.byKey[key] = tally
                    state.order.append((flag.key, tally))
                    return tally
                })
        }
    }

    /// Every key ever served with its count, in first-seen order.
    public var totals: [(flag: String, count: Int)] {
        tallies.withLock { state in state.order.map { ($0.key, $0.tally.value.load(ordering: .relaxed)) } }
    }
}
