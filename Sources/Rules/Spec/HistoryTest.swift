/// `{"history": {"event": "e", "over": "30d", "per": "day", "stat": "mean", "gte": 2}}`: a statistic over the recent
/// donation history (docs/rules.md, "history"; SpecificationKit's HistoricalSpec). Donations are counted per local
/// calendar period in the user's zone; the window is the current (partial) period and the `periods − 1` before it;
/// periods with no donation count 0, so an empty history is `periods` zeros.
///
/// Percentiles are nearest-rank over the `periods` counts sorted ascending: the value at rank `⌈q × n / 100⌉`
/// (at least 1), so `median` of an even number of periods is the lower of the two middle counts.
public struct HistoryTest: Sendable, Equatable {
    public enum Statistic: String, Sendable, CaseIterable {
        case mean, median, p90, max, min, activePeriods
    }

    public let event: String
    /// Buckets in the window (at least 1).
    public let periods: Int
    public let period: LocalPeriod
    public let statistic: Statistic
    public let op: ContextComparison.Operator
    public let threshold: JSONNumber

    public init(
        event: String, periods: Int, period: LocalPeriod, statistic: Statistic, op: ContextComparison.Operator, threshold: JSONNumber
    ) {
        self.event = event
        self.periods = periods
        self.period = period
        self.statistic = statistic
        self.op = op
        self.threshold = threshold
    }

    /// Donation counts of the periods in the window at `now` that have any, by period index. Donations after
    /// `now` have not happened yet.
    func counts(_ recent: DonationHistory, now: Instant, zone: String?) -> [Int64: Int] {
        let current = period.index(of: now, in: zone)
        // Older than the window however long its periods run (a year of 366 days, a DST day of 25 hours, a day of
        // zone offsets either side): skipped without the zone lookup that dominates the cost.
        let longest = Saturating.add(period.nominalMilliseconds + period.nominalMilliseconds / 10, 3_600_000)
        let oldest = now - Saturating.add(Saturating.multiply(Int64(periods), longest), 2 * 86_400_000)
        var counts: [Int64: Int] = [:]
        // One offset lookup per span between transitions (`ZoneOffsetCursor`), as evaluation does: the clock's
        // next-change walk and every explanation come here.
        var offsets = ZoneOffsetCursor(zone: zone)
        for instant in recent where instant <= now && instant >= oldest {
            let index = period.index(localMilliseconds: offsets.localMilliseconds(instant))
            let age = Saturating.subtract(current, index)
            if age >= 0, age < Int64(periods) { counts[index, default: 0] += 1 }
        }
        return counts
    }

    /// The statistic over `periods` buckets of which `nonzero` are the counts above 0.
    func value<Counts: Collection<Int>>(_ nonzero: Counts) -> NumberOrder.Value {
        Self.value(statistic, periods: periods, nonzero)
    }

    /// The same from the two fields it reads: a closure calling the method captured (copied) the whole test.
    static func value<Counts: Collection<Int>>(_ statistic: Statistic, periods: Int, _ nonzero: Counts) -> NumberOrder.Value {
        let zeros = periods - nonzero.count
        switch statistic {
        case .activePeriods: return .integer(nonzero.count)
        case .max: return .integer(nonzero.max() ?? 0)
        case .min: return .integer(zeros > 0 ? 0 : nonzero.min() ?? 0)
        case .mean: return .real(Double(nonzero.reduce(0, +)) / Double(periods))
        case .median, .p90:
            let percent = statistic == .median ? 50 : 90
            let rank = Swift.max(1, (percent * periods + 99) / 100)
            guard rank > zeros else { return .integer(0) }
            return .integer(nonzero.sorted()[rank - zeros - 1])
        }
    }

    func holds(_ counts: [Int64: Int]) -> Bool {
        guard let order = NumberOrder.compare(value(Array(counts.values)), NumberOrder.Value(threshold)) else { return false }
        return op.holds(order: order)
    }

    func holds(_ input: EvaluationInput) -> Bool {
        let recent = input.context.withDonations(of: event) { $0.recent } ?? []
        let statistic = self.statistic, periods = self.periods
        let measured = withNonzeroCounts(recent, now: input.now, zone: input.context.timeZone) {
            Self.value(statistic, periods: periods, $0)
        }
        guard let order = NumberOrder.compare(measured, NumberOrder.Value(threshold)) else { return false }
        return op.holds(order: order)
    }

    /// `counts(_:now:zone:)`'s values, in no particular order, without the dictionary.
    func nonzeroCounts(_ recent: DonationHistory, now: Instant, zone: String?) -> [Int] {
        withNonzeroCounts(recent, now: now, zone: zone) { Array($0) }
    }

    /// `nonzeroCounts`, handed to `body` from scratch memory: every evaluation of a history flag comes here (each
    /// write of its event evaluates it twice), and two arrays per evaluation cost a third of it. The recent list is
    /// in time order, so an instant mostly falls in the period of the one before it; otherwise the few periods
    /// seen are searched.
    func withNonzeroCounts<Result>(
        _ recent: DonationHistory, now: Instant, zone: String?, _ body: (UnsafeBufferPointer<Int>) -> Result
    ) -> Result {
        // Locals, not `self`'s fields: the scratch closures below copied the whole test (its event name
        // retained) four times per evaluation to reach them.
        let period = self.period
        let periods = self.periods
        let current = period.index(of: now, in: zone)
        let longest = Saturating.add(period.nominalMilliseconds + period.nominalMilliseconds / 10, 3_600_000)
        let oldest = now - Saturating.add(Saturating.multiply(Int64(periods), longest), 2 * 86_400_000)
        // Only the instants from `oldest` to `now` are visited, found by binary search in the ascending history:
        // filtering every instant walked the whole history (up to the policy's thousand) on each evaluation.
        let first = DonationSummary.firstIndex(in: recent) { $0 >= oldest }
        let window = first..<Swift.max(first, DonationSummary.firstIndex(in: recent) { $0 > now })
        // At most one period per instant.
        let capacity = Swift.max(1, window.count)
        return withUnsafeTemporaryAllocation(of: Int64.self, capacity: capacity) { indices in
            withUnsafeTemporaryAllocation(of: Int.self, capacity: capacity) { counts in
                var filled = 0
                var last = -1
                var highest = Int64.min
                var offsets = ZoneOffsetCursor(zone: zone)
                for instant in recent[window] {
                    let index = period.index(localMilliseconds: offsets.localMilliseconds(instant))
                    let age = Saturating.subtract(current, index)
                    guard age >= 0, age < Int64(periods) else { continue }
                    if last < 0 || indices[last] != index {
                        // Past every period seen: new, with no search (the sorted case, linear however many periods).
                        if index <= highest, let seen = UnsafeMutableBufferPointer(rebasing: indices[..<filled]).firstIndex(of: index) {
                            last = seen
                        } else {
                            indices[filled] = index
                            counts[filled] = 0
                            last = filled
                            filled += 1
                            highest = Swift.max(highest, index)
                        }
                    }
                    counts[last] += 1
                }
                return body(UnsafeBufferPointer(rebasing: counts[..<filled]))
            }
        }
    }

    func why(_ input: EvaluationInput) -> String {
        let zone = input.context.timeZone
        let counts = counts(input.context.donations[event]?.recent ?? [], now: input.now, zone: zone)
        let current = period.index(of: input.now, in: zone)
        let shown = Swift.min(periods, 31)
        let buckets = (0..<shown).reversed().map { String(counts[current - Int64($0)] ?? 0) }.joined(separator: ", ")
        let value: String
        switch self.value(Array(counts.values)) {
        case .integer(let number): value = String(number)
        case .real(let number): value = JSONNumber(number).text
        }
        return "\(event) per \(period.unit.rawValue) in \(zone ?? "UTC"), "
            + (shown < periods ? "last \(shown) of \(periods)" : "\(periods)") + " periods [\(buckets)] (current last); "
            + "\(statistic.rawValue) \(value), \(op.rawValue) \(threshold)"
    }

    var inputs: Set<ContextInput> { [.donation(event, .recent), .timeZone] }
}
