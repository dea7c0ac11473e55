import Rules

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

    /// Whether an action erases the user (after which a later action may create it afresh).
    var erases: Bool {
        actions.contains { if case .erase = $0 { true } else { false } }
    }
}
