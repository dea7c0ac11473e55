import Rules

/// One state change to one user's context (docs/api.md, "Context updates"). Instants are resolved before an action is
/// logged, so replaying the log gives the same state whatever the clock says then.
public enum Action: Sendable, Equatable {
    case increment(counter: String, by: Int)
    case decrement(counter: String, by: Int)
    case setCounter(counter: String, value: Int)
    case resetCounter(counter: String)
    case recordEvent(event: String, at: Instant)
    case removeEvent(event: String)
    case setFlag(flag: String, value: Bool)
    case toggleFlag(flag: String)
    case setAttribute(key: String, value: JSONValue)
    case removeAttribute(key: String)
    case addSegment(String)
    case removeSegment(String)
    case setTimeZone(String)
    case setLaunchedAt(Instant)
    case clear(ClearScope)
    case donate(event: String, at: Instant, appVersion: String?)
    case resetDonations(event: String)
    case erase
    case recordTriggerFire(trigger: String, at: Instant)
    /// `setAttribute` with `ttl` / `expiresAt` (resolved to an instant before logging): from `expiresAt` on the
    /// attribute reads as missing.
    case setExpiringAttribute(key: String, value: JSONValue, expiresAt: Instant)
    /// `setFlag` with `ttl` / `expiresAt`.
    case setExpiringFlag(flag: String, value: Bool, expiresAt: Instant)
    /// `addSegment` with `ttl` / `expiresAt`.
    case addExpiringSegment(String, expiresAt: Instant)
    /// A display event for a display flag; `maxCount` and `invalidates` are the flag's rule when it was written
    /// (docs/rules.md, "Display accounting"), logged so replay never consults the rules.
    case recordDisplay(flag: String, event: DisplayState.Event, at: Instant, maxCount: Int?, invalidates: Bool)
    /// An operator cancelled the user's pending delayed fire of `trigger`, due at `due` (docs/api.md, "Operations").
    /// Logged so the user's history shows it; it changes nothing in the context and never creates a user.
    case cancelPendingFire(trigger: String, due: Instant)

    public enum ClearScope: String, Sendable, CaseIterable {
        case counters, events, flags, attributes, segments, all
    }
}
