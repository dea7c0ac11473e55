/// A flag's compiled `display` (docs/rules.md, "Display accounting"): its own limits, and what each group it belongs
/// to asks of it, with the other members resolved so evaluating needs no lookup in the rule set.
public struct DisplayRule: Sendable, Equatable {
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

    public init(maxCount: Int?, invalidateOn: Set<DisplayState.Event>, group: String?, constraints: [Constraint] = []) {
        self.maxCount = maxCount
        self.invalidateOn = invalidateOn
        self.group = group
        self.constraints = constraints
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

    /// The gate for flag `key` in `context` at `now`. A few lookups: the flag's own state and its groups' members.
    public func gate(_ key: String, _ context: UserContext, now: Instant) -> Gate {
        let own = context.display[key]
        if let reason = (own ?? DisplayState()).invalidation(maxCount: maxCount) { return .invalidated(reason) }
        var latestEnd: (group: String, member: String, until: Instant)?
        for constraint in constraints {
            if constraint.group.order == .ordered {
                for member in constraint.others.prefix(constraint.earlierCount)
                where context.display[member.key]?.invalidation(maxCount: member.maxCount) == nil {
                    return .waitingForEarlier(group: constraint.group.name, member: member.key)
                }
            }
            // The member shown last, by date; ties leave every tied member eligible.
            var last: (key: String, at: Instant)?
            for member in constraint.others {
                if let at = context.display[member.key]?.lastShown, last.map({ at > $0.at }) ?? true { last = (member.key, at) }
            }
            guard let last else { continue }
            if let mine = own?.lastShown, mine >= last.at { continue }
            let until = last.at + constraint.group.window
            guard now < until else { continue }
            if latestEnd.map({ until > $0.until }) ?? true { latestEnd = (constraint.group.name, last.key, until) }
        }
        if let latestEnd { return .waitingForWindow(group: latestEnd.group, member: latestEnd.member, until: latestEnd.until) }
        return .open
    }

    /// Every display state the gate reads: the flag's own and its groups' members'.
    public func inputs(_ key: String) -> Set<ContextInput> {
        var inputs: Set<ContextInput> = [.display(key)]
        for constraint in constraints { for member in constraint.others { inputs.insert(.display(member.key)) } }
        return inputs
    }
}
