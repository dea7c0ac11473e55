import Rules

/// Where the daemon reads "now"; tests and scenario runs inject their own.
public protocol WallClock: Sendable {
    func now() -> Instant
}
