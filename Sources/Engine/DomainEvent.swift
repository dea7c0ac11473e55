import Rules

/// Something subscribers may want to hear, as data: the engine says what happened, the API's stream hub turns it
/// into bytes.
public enum DomainEvent: Sendable {
    /// A flag's answer for a user changed (`seq`: the write that changed it; `nil` when the clock or a reload did),
    /// as evaluated for `appVersion` (the `X-App-Version` streams sent; `nil`: none): only streams of that version
    /// hear it, because an answer that reads the app version differs between them.
    case flagChanged(user: String, key: String, evaluation: Evaluation, previous: JSONValue?, seq: UInt64?, appVersion: String?)
    case triggerFired(user: String, trigger: String, at: Instant, seq: UInt64)
    /// A user's context after a write; `nil` once erased.
    case contextChanged(user: String, context: UserContext?, seq: UInt64)
    case rulesReloaded(version: String)
}
