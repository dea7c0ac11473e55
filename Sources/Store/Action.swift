import Rules

/// One state change to one user's context (DESIGN §4). Instants are resolved before an action is logged, so
/// replaying the log gives the same state whatever the clock says then.
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

    public enum ClearScope: String, Sendable, CaseIterable {
        case counters, events, flags, attributes, segments, all
    }
}

/// A batch of actions for one user, applied all or nothing at one instant: the unit the log records.
public struct Mutation: Sendable, Equatable {
    public var user: String
    public var now: Instant
    public var actions: [Action]

    public init(user: String, now: Instant, actions: [Action]) {
        self.user = user
        self.now = now
        self.actions = actions
    }
}

/// What a reducer step did beyond the new state, for the server to act on outside the reducer.
public enum Effect: Sendable, Equatable {
    case created
    case donated(event: String, summary: DonationSummary)
    case donationsReset(event: String)
    case triggerFired(trigger: String, at: Instant)
    case erased
}

/// How much donation history each (user, event) keeps for windows.
public struct HistoryPolicy: Sendable, Equatable {
    public var maxEntries: Int
    public var maxAge: Milliseconds

    public init(maxEntries: Int = 1000, maxAge: Milliseconds = 90 * 86_400_000) {
        self.maxEntries = maxEntries
        self.maxAge = maxAge
    }
}

/// Why a batch was refused; `index` names the action, so the API can say `ops[2]`.
public enum ReducerError: Error, Equatable, Sendable {
    case emptyKey(index: Int)
    /// The counter's new value is outside Int64: refused, never wrapped or trapped.
    case counterOverflow(index: Int, counter: String)
    case negativeAmount(index: Int)
    case unknownTimeZone(index: Int, zone: String)
    /// A new key past a per-user cap, an attribute value or a key too large (`value` is the limit in force).
    case limitExceeded(index: Int, limit: ContextLimits.Limit, value: Int)

    public var index: Int {
        switch self {
        case .emptyKey(let index), .counterOverflow(let index, _), .negativeAmount(let index), .unknownTimeZone(let index, _),
             .limitExceeded(let index, _, _):
            return index
        }
    }

    /// The API error code.
    public var code: String {
        switch self {
        case .counterOverflow: return "overflow"
        case .limitExceeded: return "limit_exceeded"
        case .emptyKey, .negativeAmount, .unknownTimeZone: return "invalid_operation"
        }
    }

    /// The field at fault in a `PATCH …/context` body: the amount for an overflow, else the operation.
    public var field: String {
        switch self {
        case .counterOverflow(let index, _): return "ops[\(index)].by"
        default: return "ops[\(index)]"
        }
    }

    public var message: String {
        switch self {
        case .emptyKey: return "the key must not be empty"
        case .counterOverflow(_, let counter): return "counter '\(counter)' would overflow: counters hold integers from \(Int.min) to \(Int.max)"
        case .negativeAmount: return "the amount must not be negative"
        case .unknownTimeZone(_, let zone): return "'\(zone)' is not an IANA time zone"
        case .limitExceeded(_, let limit, let value): return ContextLimits.describe(limit, value)
        }
    }
}
