import Rules
import Synchronization

/// A clock that moves only when told: scenario runs (`specd test`) and tests read "now" from it.
public final class VirtualClock: WallClock {
    private let instant: Mutex<Instant>

    public init(_ start: Instant) { instant = Mutex(start) }

    public func now() -> Instant { instant.withLock { $0 } }

    /// Moves to `instant`; never backwards (a scenario's steps only go forward).
    public func move(to instant: Instant) {
        self.instant.withLock { $0 = max($0, instant) }
    }
}
