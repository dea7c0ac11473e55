import Foundation
import Rules

/// The machine's clock, as the daemon reads it outside tests.
public struct SystemClock: WallClock {
    public init() {}

    public func now() -> Instant {
        Instant(seconds: Date().timeIntervalSince1970)
    }
}
