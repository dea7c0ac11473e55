import Foundation
import Rules

/// Where the daemon reads "now"; tests and scenario runs inject their own.
public protocol WallClock: Sendable {
    func now() -> Instant
}

public struct SystemClock: WallClock {
    public init() {}

    public func now() -> Instant {
        Instant(seconds: Date().timeIntervalSince1970)
    }
}
