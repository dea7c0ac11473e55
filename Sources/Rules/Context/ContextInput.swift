/// One piece of a user's context a spec can read. Knowing each flag's inputs lets a write re-evaluate only the
/// flags that can depend on what it changed, instead of every flag blindly: a write to a user with a thousand flags
/// costs the few its change can reach.
public enum ContextInput: Hashable, Sendable {
    case counter(String)
    case event(String)
    case flag(String)
    case attribute(String)
    case segments
    /// One part of one event's donation summary: a write that changes only some parts reaches only their readers.
    case donation(String, DonationPart)
    case launchedAt
    case timeZone
    /// Anything: what a spec reads through a flagd prerequisite, whose JSON Logic may read any attribute. A flag
    /// reading it has unknown inputs (`Flag.inputs == nil`).
    case unknown
    /// One flag's display state (docs/rules.md, "Display accounting").
    case display(String)
}

extension Spec {
    /// Everything this spec may read from a context (the request's app version and the clock are not context).
    public var inputs: Set<ContextInput> {
        switch self {
        case .all(let children), .any(let children), .none(let children), .atLeast(_, let children):
            return children.reduce(into: []) { $0.formUnion($1.inputs) }
        case .not(let child), .ref(_, let child): return child.inputs
        case .always, .dateRange, .appVersion: return []
        case .flag(let key, _, _): return [.flag(key)]
        case .counter(let key, _): return [.counter(key)]
        case .maxCount(let key, _): return [.counter(key)]
        case .elapsedSince(_, let event, _), .eventExists(let event), .eventDate(let event, _, _): return [.event(event)]
        case .sinceLaunch: return [.launchedAt]
        case .hourIn(_, _, let zone), .weekday(_, let zone): return zone == nil ? [.timeZone] : []
        case .segment, .segmentsAny, .segmentsAll: return [.segments]
        case .subscription: return [.attribute("subscription_status")]
        case .attribute(let key, _): return [.attribute(key)]
        case .donations(let event, _, let within): return [.donation(event, within == nil ? .count : .recent)]
        case .donationRecency(let event, let first, _, _): return [.donation(event, first ? .firstAt : .lastAt)]
        case .donationVersion(let event, let first, _): return [.donation(event, first ? .firstVersion : .lastVersion)]
        case .rollout(_, _, let by): return by.map { [.attribute($0)] } ?? []
        case .prerequisite(let flag, _): return flag.inputs ?? [.unknown]
        case .backoffCooldown(let cooldown): return cooldown.inputs
        case .dayNightCooldown(let cooldown): return cooldown.inputs
        case .launchAge(let test): return test.inputs
        case .number(let key, _): return [.attribute(key)]
        case .comparison(let comparison): return comparison.inputs
        case .history(let test): return test.inputs
        case .display(let flag, _): return [.display(flag)]
        }
    }
}

extension Flag {
    /// `nil` when unknown (JSON Logic may read any attribute): such a flag is re-evaluated on every write.
    public var inputs: Set<ContextInput>? {
        let read: Set<ContextInput>?
        switch body {
        case .boolean(let spec): read = spec.inputs.known
        case .cases(let cases, _): read = cases.reduce(into: Set<ContextInput>()) { $0.formUnion($1.when.inputs) }.known
        case .flagd: read = nil
        case .pick(let pick): read = pick.inputs.known
        }
        guard let display else { return read }
        return read?.union(display.inputs(key))
    }
}

extension UserContext {
    /// What differs between two states of one user (`nil` = no user: everything it has differs).
    public static func changedInputs(from old: UserContext?, to new: UserContext?) -> Set<ContextInput> {
        let before = old ?? UserContext()
        let after = new ?? UserContext()
        var changed: Set<ContextInput> = []
        func compare<Value: Equatable>(_ a: CompactMap<Value>, _ b: CompactMap<Value>, _ make: (String) -> ContextInput) {
            for entry in a.entries where b[entry.key] != entry.value { changed.insert(make(entry.key)) }
            for entry in b.entries where a[entry.key] == nil { changed.insert(make(entry.key)) }
        }
        compare(before.counters, after.counters, ContextInput.counter)
        compare(before.events, after.events, ContextInput.event)
        compare(before.flags, after.flags, ContextInput.flag)
        compare(before.attributes, after.attributes, ContextInput.attribute)
        // An event donated on one side only changes every part (a present, empty summary is not a missing one).
        for entry in before.donations.entries {
            guard let other = after.donations[entry.key] else {
                for part in DonationPart.allCases { changed.insert(.donation(entry.key, part)) }
                continue
            }
            for part in DonationPart.allCases where part.differs(entry.value, other) { changed.insert(.donation(entry.key, part)) }
        }
        for entry in after.donations.entries where before.donations[entry.key] == nil {
            for part in DonationPart.allCases { changed.insert(.donation(entry.key, part)) }
        }
        compare(before.display, after.display, ContextInput.display)
        if before.segments != after.segments { changed.insert(.segments) }
        if before.launchedAt != after.launchedAt { changed.insert(.launchedAt) }
        if before.timeZone != after.timeZone { changed.insert(.timeZone) }
        return changed
    }
}

extension RuleSet {
    /// The flags (in declaration order) whose answer can depend on any of these inputs. The definition; writes use
    /// `flagsAffected(from:to:)`, which gives the same flags from a precomputed index.
    public func flagsAffected(by changed: Set<ContextInput>) -> [String] {
        guard !changed.isEmpty else { return [] }
        return flagKeys.filter { key in flagInputs[key].map { !$0.isDisjoint(with: changed) } ?? true }
    }
}

extension RuleSet {
    /// The flags, in declaration order, whose answer can differ between two states of one user: the flags
    /// `flagsAffected(by: UserContext.changedInputs(from: old, to: new))` names, found with one index lookup per
    /// changed key instead of a set of changed inputs tested against every flag's.
    public func flagsAffected(from old: UserContext?, to new: UserContext?) -> AffectedFlags {
        AffectedFlags(reached: inputIndex.affected(from: old, to: new), flags: orderedFlags)
    }
}

extension RuleSet {
    /// The flags whose answer can differ between two states of one user as they read at `now`. A value whose
    /// expiry has come is still stored until something prunes it, yet no evaluation sees it (`EvaluationInput`):
    /// compared as stored, re-adding a segment, flag or attribute that had expired looked like no change, and the
    /// flags reading it were never asked (found in review).
    public func flagsAffected(from old: UserContext?, to new: UserContext?, at now: Instant) -> AffectedFlags {
        flagsAffected(from: old?.removingExpired(at: now), to: new?.removingExpired(at: now))
    }
}

extension Set<ContextInput> {
    /// These inputs, or `nil` when they include `.unknown`: a prerequisite's unknown inputs are its dependent's.
    var known: Set<ContextInput>? { contains(.unknown) ? nil : self }
}
