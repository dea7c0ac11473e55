/// What a token may do (docs/api.md, "Conventions": auth and scopes).
public enum Scope: String, Sendable, CaseIterable {
    /// Reads, evaluation, user streams.
    case evaluate
    /// Donations and context updates.
    case write
    /// The global stream, rules, reload, erase, status and metrics.
    case admin
}
