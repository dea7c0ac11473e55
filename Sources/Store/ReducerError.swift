import Rules

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
