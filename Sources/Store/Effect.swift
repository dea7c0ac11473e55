import Rules

/// What a reducer step did beyond the new state, for the server to act on outside the reducer.
public enum Effect: Sendable, Equatable {
    case created
    case donationsReset(event: String)
    case triggerFired(trigger: String, at: Instant)
    case erased
}
