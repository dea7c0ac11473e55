/// A flag's compiled `display` (docs/rules.md, "Display accounting"): its own limits, and what each group it belongs
/// to asks of it, with the other members resolved so evaluating needs no lookup in the rule set. A class, immutable:
/// every evaluation of the flag reads it, and a reference costs one retain where a struct's fields cost one each.
public final class DisplayRule: Sendable, Equatable {
    /// One group's hold on this flag.
    public struct Constraint: Sendable, Equatable {
        public let group: DisplayGroup
        /// The group's other members in declaration order; the first `earlierCount` come before this flag.
        public let others: [Member]
        public let earlierCount: Int
    }

    /// Another member of a group, with the `maxCount` that invalidates it.
    public struct Member: Sendable, Equatable {
        public let key: String
        public let maxCount: Int?
    }

    public let maxCount: Int?
    /// Which of `dismissed` / `actionPerformed` invalidate the display.
    public let invalidateOn: Set<DisplayState.Event>
    /// The group the flag names (`nil`: only the global group, when it is declared).
    public let group: String?
    /// Its own group's constraint first, then the global group's; filled in once every flag is known.
    public let constraints: [Constraint]

    /// Every other member of every constraint once, with what each constraint asks of it: evaluation looks each
    /// member's state up once, however many groups the two flags share (a member of the flag's group is also one of
    /// the global group's).
    let roles: [Role]

    struct Role: Sendable, Equatable {
        let key: String
        let maxCount: Int?
        /// The ordered constraint that needs it invalidated first, if any.
        let mustBeInvalidatedFor: Int?
        /// Bit `i`: a member of `constraints[i]` (its shows start that group's window).
        let constraintBits: UInt8
    }

    public init(maxCount: Int?, invalidateOn: Set<DisplayState.Event>, group: String?, constraints: [Constraint] = []) {
        self.maxCount = maxCount
        self.invalidateOn = invalidateOn
        self.group = group
        self.constraints = constraints
        var roles: [Role] = []
        // Where each member's role is, by its key's bytes: a scan of the roles per member made a group cubic to
        // compile.
        var placed: [ByteKey: Int] = [:]
        for (index, constraint) in constraints.enumerated() {
            for (position, member) in constraint.others.enumerated() {
                let earlier = constraint.group.order == .ordered && position < constraint.earlierCount ? index : nil
                if let found = placed[ByteKey(member.key)] {
                    let role = roles[found]
                    roles[found] = Role(
                        key: role.key, maxCount: role.maxCount, mustBeInvalidatedFor: role.mustBeInvalidatedFor ?? earlier,
                        constraintBits: role.constraintBits | 1 << UInt8(index))
                } else {
                    placed[ByteKey(member.key)] = roles.count
                    roles.append(Role(key: member.key, maxCount: member.maxCount, mustBeInvalidatedFor: earlier, constraintBits: 1 << UInt8(index)))
                }
            }
        }
        self.roles = roles
    }

    public static func == (lhs: DisplayRule, rhs: DisplayRule) -> Bool {
        lhs.maxCount == rhs.maxCount && lhs.invalidateOn == rhs.invalidateOn && lhs.group == rhs.group && lhs.constraints == rhs.constraints
    }

    func with(_ constraints: [Constraint]) -> DisplayRule {
        DisplayRule(maxCount: maxCount, invalidateOn: invalidateOn, group: group, constraints: constraints)
    }

    /// Whether the flag may answer as its rules say, or what holds it back.
    public enum Gate: Sendable, Equatable {
        case open
        /// For good: answers false / its fallback with reason `INVALIDATED`.
        case invalidated(DisplayState.InvalidationReason)
        /// An earlier member of an ordered group is not invalidated yet: only a write can open it.
        case waitingForEarlier(group: String, member: String)
        /// Another member was shown last: eligible again at `until` (the group's window rolling from that show).
        case waitingForWindow(group: String, member: String, until: Instant)
    }

    /// The gate for flag `key` in `context` at `now`: the flag's own state and each other member's, looked up once.
    public func gate(_ key: String, _ context: UserContext, now: Instant) -> Gate {
        let own = context.display(forKey: key)
        if let reason = (own ?? DisplayState()).invalidation(maxCount: maxCount) { return .invalidated(reason) }
        guard !roles.isEmpty else { return .open }
        // Per constraint (at most two: the flag's group and the global one), the member shown last, by date.
        var lastInGroup: (key: String, at: Instant)?
        var lastInGlobal: (key: String, at: Instant)?
        for role in roles {
            let state = context.display(forKey: role.key)
            if let constraint = role.mustBeInvalidatedFor, (state ?? DisplayState()).invalidation(maxCount: role.maxCount) == nil {
                return .waitingForEarlier(group: constraints[constraint].group.name, member: role.key)
            }
            guard let at = state?.lastShown else { continue }
            if role.constraintBits & 1 != 0, lastInGroup.map({ at > $0.at }) ?? true { lastInGroup = (role.key, at) }
            if role.constraintBits & 2 != 0, lastInGlobal.map({ at > $0.at }) ?? true { lastInGlobal = (role.key, at) }
        }
        let first = waiting(0, lastInGroup, own?.lastShown, now)
        let second = constraints.count > 1 ? waiting(1, lastInGlobal, own?.lastShown, now) : nil
        guard var end = first ?? second else { return .open }
        if let first, let second, second.until > first.until { end = second }
        return .waitingForWindow(group: constraints[end.constraint].group.name, member: end.member, until: end.until)
    }

    /// A constraint's window, rolling from its member shown last: `nil` when it has passed, or when this flag was
    /// shown at the same instant or later (the flag shown last stays eligible).
    private func waiting(
        _ constraint: Int, _ last: (key: String, at: Instant)?, _ mine: Instant?, _ now: Instant
    ) -> (constraint: Int, member: String, until: Instant)? {
        guard let last else { return nil }
        if let mine, mine >= last.at { return nil }
        let until = last.at + constraints[constraint].group.window
        guard now < until else { return nil }
        return (constraint, last.key, until)
    }

    /// Every display state the gate reads: the flag's own and its groups' members'.
    public func inputs(_ key: String) -> Set<ContextInput> {
        var inputs: Set<ContextInput> = [.display(key)]
        for constraint in constraints { for member in constraint.others { inputs.insert(.display(member.key)) } }
        return inputs
    }
}
