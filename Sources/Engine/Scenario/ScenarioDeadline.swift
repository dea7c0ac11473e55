/// The wall-clock time one scenario file's runs may take, every configuration together (`specd test --timeout`).
/// The other bounds count instants and evaluations, not what each costs, and each of up to 100 configurations had
/// them afresh, so a file within all of them could still run for hours (found in review). A value: the runs of one
/// file share it, each checking the same end.
public struct ScenarioDeadline: Sendable {
    /// What `specd test` allows a file unless told otherwise: far past any scenario a person reads, far short of a
    /// CI job's own timeout.
    public static let defaultAllowance: Duration = .seconds(60)

    /// How long the runs were given, for the report.
    public let allowance: Duration
    private let end: ContinuousClock.Instant

    /// Starts now. `allowance` is clamped to a day, so the end is always a representable instant.
    public init(_ allowance: Duration = defaultAllowance) {
        self.allowance = min(max(allowance, .zero), .seconds(86_400))
        end = ContinuousClock.now.advanced(by: self.allowance)
    }

    public var hasPassed: Bool { ContinuousClock.now >= end }

    /// `60 s`, `0.05 s`: the allowance as the report states it.
    var text: String {
        let (seconds, attoseconds) = allowance.components
        guard attoseconds != 0 else { return "\(seconds) s" }
        return "\(Double(seconds) + Double(attoseconds) / 1e18) s"
    }
}
