import Rules

/// The pure heart of the store: `(state, batch, now) → (state, effects)`. No I/O, no clock; the same inputs
/// always give the same outputs, which is what makes replaying the log exact.
public enum Reducer {
    /// Applies a batch all or nothing. `nil` state means the user does not exist; `erase` returns to `nil`.
    ///
    /// `limits` are the per-user caps for a new write. Replaying acknowledged records passes none (`.unlimited`):
    /// a record accepted under higher caps must replay exactly, whatever the caps are now. The caps only refuse
    /// growth (a new key past a cap, a key or value too large), so a user over a lowered cap can still change or
    /// remove what it has.
    public static func apply(
        _ mutation: Mutation, to state: UserContext?, policy: HistoryPolicy = HistoryPolicy(),
        limits: ContextLimits = .unlimited
    ) throws(ReducerError) -> (state: UserContext?, effects: [Effect]) {
        var current = state
        let effects = try applyInPlace(mutation, to: &current, policy: policy, limits: limits)
        return (current, effects)
    }

    /// The same step, mutating `state` where it lies (no copy-on-write copy when the caller holds the only
    /// reference, as replay does). A one-action batch checks before it changes anything; a longer batch works
    /// on a copy and commits it only when every action succeeded.
    public static func applyInPlace(
        _ mutation: Mutation, to state: inout UserContext?, policy: HistoryPolicy = HistoryPolicy(),
        limits: ContextLimits = .unlimited
    ) throws(ReducerError) -> [Effect] {
        var effects: [Effect] = []
        if mutation.actions.count == 1 {
            try step(mutation.actions[0], index: 0, state: &state, now: mutation.now, policy: policy, limits: limits, effects: &effects)
            return effects
        }
        var working = state
        for (index, action) in mutation.actions.enumerated() {
            try step(action, index: index, state: &working, now: mutation.now, policy: policy, limits: limits, effects: &effects)
        }
        state = working
        return effects
    }

    /// `applyInPlace` for a user that exists, with a batch that does not erase it (`Mutation.erases` false): the
    /// context changed where it lies (`&table.users.values[index]`, in replay). Through an optional
    /// (`&table.users[id]`) the dictionary's accessor copied and destroyed the whole context on the way back, a third
    /// of replaying a one-counter record.
    static func applyInPlace(
        _ mutation: Mutation, toExisting state: inout UserContext, policy: HistoryPolicy, limits: ContextLimits
    ) throws(ReducerError) -> [Effect] {
        assert(!mutation.erases, "an erasing batch goes through applyInPlace(_:to:)")
        var effects: [Effect] = []
        if mutation.actions.count == 1 {
            if case .cancelPendingFire = mutation.actions[0] { return effects }
            try reduce(&state, mutation.actions[0], index: 0, now: mutation.now, policy: policy, limits: limits, effects: &effects)
            return effects
        }
        var working = state
        for (index, action) in mutation.actions.enumerated() {
            if case .cancelPendingFire = action { continue }
            try reduce(&working, action, index: index, now: mutation.now, policy: policy, limits: limits, effects: &effects)
        }
        state = working
        return effects
    }

    private static func step(
        _ action: Action, index: Int, state: inout UserContext?, now: Instant, policy: HistoryPolicy,
        limits: ContextLimits, effects: inout [Effect]
    ) throws(ReducerError) {
        if case .erase = action {
            if state != nil { effects.append(.erased) }
            state = nil
            return
        }
        // A cancelled pending fire is the log's record of an operator's act, not a change to the context: it must
        // not create an erased or unknown user, so replay gives the state the live store kept.
        if case .cancelPendingFire = action { return }
        if state == nil {
            var fresh = UserContext()
            // `sinceLaunch` counts from a stored user's first write (docs/rules.md, "sinceLaunch").
            fresh.launchedAt = now
            // `.created` goes before what the action itself records: where its effects start, noted before it runs.
            let start = effects.count
            try reduce(&fresh, action, index: index, now: now, policy: policy, limits: limits, effects: &effects)
            effects.insert(.created, at: start)
            state = fresh
            return
        }
        try reduce(&state!, action, index: index, now: now, policy: policy, limits: limits, effects: &effects)
    }

    static func reduce(
        _ context: inout UserContext, _ action: Action, index: Int, now: Instant, policy: HistoryPolicy,
        limits: ContextLimits, effects: inout [Effect]
    ) throws(ReducerError) {
        if context.expiries.hasExpired(at: now) {
            // Expired values are gone before the action reads or counts anything; on a copy, so a refused
            // action leaves the state as it was.
            var live = context.removingExpired(at: now)
            try reduce(&live, action, index: index, now: now, policy: policy, limits: limits, effects: &effects)
            context = live
            return
        }
        switch action {
        case .increment(let counter, let amount):
            try requireKey(counter, index, limits)
            try requireRoom(in: context.counters, for: counter, .counters, limits, index)
            let (sum, overflow) = (context.counters[counter] ?? 0).addingReportingOverflow(amount)
            if overflow { throw .counterOverflow(index: index, counter: counter) }
            context.counters[KeyInterner.intern(counter)] = sum
        case .decrement(let counter, let amount):
            try requireKey(counter, index, limits)
            guard amount >= 0 else { throw .negativeAmount(index: index) }
            try requireRoom(in: context.counters, for: counter, .counters, limits, index)
            // Checked like an increment: a counter set negative and then decremented by a huge amount has no Int64
            // result to floor, and the answer that names the amount beats a silent zero.
            let (difference, overflow) = (context.counters[counter] ?? 0).subtractingReportingOverflow(amount)
            if overflow { throw .counterOverflow(index: index, counter: counter) }
            context.counters[KeyInterner.intern(counter)] = max(0, difference)
        case .setCounter(let counter, let value):
            try requireKey(counter, index, limits)
            try requireRoom(in: context.counters, for: counter, .counters, limits, index)
            context.counters[KeyInterner.intern(counter)] = value
        case .resetCounter(let counter):
            try requireKey(counter, index, limits)
            try requireRoom(in: context.counters, for: counter, .counters, limits, index)
            context.counters[KeyInterner.intern(counter)] = 0
        case .recordEvent(let event, let at):
            try requireKey(event, index, limits)
            try requireRoom(in: context.events, for: event, .events, limits, index)
            context.events[KeyInterner.intern(event)] = at
        case .removeEvent(let event):
            context.events[event] = nil
        case .setFlag(let flag, let value):
            try requireKey(flag, index, limits)
            try requireRoom(in: context.flags, for: flag, .flags, limits, index)
            context.flags[KeyInterner.intern(flag)] = value
        case .toggleFlag(let flag):
            try requireKey(flag, index, limits)
            try requireRoom(in: context.flags, for: flag, .flags, limits, index)
            context.flags[KeyInterner.intern(flag)] = !(context.flags[flag] ?? false)
        case .setAttribute(let key, let value):
            try requireKey(key, index, limits)
            try requireRoom(in: context.attributes, for: key, .attributes, limits, index)
            if limits.maxAttributeValueBytes < .max, JSONWriter.write(value).count > limits.maxAttributeValueBytes {
                throw .limitExceeded(index: index, limit: .attributeValueBytes, value: limits.maxAttributeValueBytes)
            }
            context.attributes[KeyInterner.intern(key)] = value
        case .removeAttribute(let key):
            context.attributes[key] = nil
        case .addSegment(let segment):
            try requireKey(segment, index, limits)
            if context.segments.count >= limits.maxSegments, !context.segments.contains(segment) {
                throw .limitExceeded(index: index, limit: .segments, value: limits.maxSegments)
            }
            context.segments.insert(KeyInterner.intern(segment))
        case .removeSegment(let segment):
            context.segments.remove(segment)
        case .setTimeZone(let zone):
            guard TimeZones.isValid(zone) else { throw .unknownTimeZone(index: index, zone: zone) }
            context.timeZone = KeyInterner.intern(zone)
        case .setLaunchedAt(let at):
            context.launchedAt = at
        case .clear(let scope):
            clear(&context, scope)
        case .donate(let event, let at, let appVersion):
            try requireKey(event, index, limits)
            try requireRoom(in: context.donations, for: event, .donationEvents, limits, index)
            try requireRoom(in: context.events, for: event, .events, limits, index)
            let key = KeyInterner.intern(event)
            let mark = DonationSummary.Mark(at: at, appVersion: appVersion.map(KeyInterner.intern))
            context.donations.withValue(forKey: key, default: { DonationSummary() }) { summary in
                // Saturates: only a count restored from elsewhere could be this high, and it must not trap.
                summary.count = summary.count < .max ? summary.count + 1 : .max
                // `first` / `last` are the earliest / latest by date (RuleKit's donations.first / .last), not by
                // arrival: a backdated donation before `first` becomes `first`. On a tie the earlier arrival stays
                // `first` and the later one becomes `last`, so arrival order breaks ties both ways.
                if summary.first.map({ at < $0.at }) ?? true { summary.first = mark }
                if summary.last.map({ at >= $0.at }) ?? true { summary.last = mark }
                record(at, into: &summary.recent, now: now, policy: policy)
            }
            context.events[key] = at
        case .resetDonations(let event):
            // A reset forgets the summary and leaves trigger throttles alone, so resetting a count cannot make a
            // throttled trigger fire again early (docs/api.md, "Donations").
            context.donations[event] = nil
            effects.append(.donationsReset(event: event))
        case .recordTriggerFire(let trigger, let at):
            // Trigger names come from the rules, not from clients: no key limit applies.
            if trigger.isEmpty { throw .emptyKey(index: index) }
            context.triggerFires[KeyInterner.intern(trigger)] = at
            effects.append(.triggerFired(trigger: trigger, at: at))
        case .erase:
            break
        case .setExpiringAttribute(let key, let value, let expiresAt):
            try reduce(&context, .setAttribute(key: key, value: value), index: index, now: now, policy: policy, limits: limits, effects: &effects)
            expire(.attribute, key, at: expiresAt, now: now, in: &context)
        case .setExpiringFlag(let flag, let value, let expiresAt):
            try reduce(&context, .setFlag(flag: flag, value: value), index: index, now: now, policy: policy, limits: limits, effects: &effects)
            expire(.flag, flag, at: expiresAt, now: now, in: &context)
        case .addExpiringSegment(let segment, let expiresAt):
            try reduce(&context, .addSegment(segment), index: index, now: now, policy: policy, limits: limits, effects: &effects)
            expire(.segment, segment, at: expiresAt, now: now, in: &context)
        case .recordDisplay(let flag, let event, let at, let maxCount, let invalidates):
            try requireKey(flag, index, limits)
            var state = context.display[flag] ?? DisplayState()
            state.record(event, at: at, maxCount: maxCount, invalidates: invalidates)
            context.display[KeyInterner.intern(flag)] = state
        case .cancelPendingFire:
            break
        }
        if !context.expiries.isEmpty { clearExpiry(after: action, in: &context) }
    }

    static func clear(_ context: inout UserContext, _ scope: Action.ClearScope) {
        switch scope {
        case .counters: context.counters.removeAll()
        case .events: context.events.removeAll()
        case .flags: context.flags.removeAll()
        case .attributes: context.attributes.removeAll()
        case .segments: context.segments.removeAll()
        case .all:
            context.counters.removeAll()
            context.events.removeAll()
            context.flags.removeAll()
            context.attributes.removeAll()
            context.segments.removeAll()
        }
    }

    @inline(__always)
    static func requireKey(_ key: String, _ index: Int, _ limits: ContextLimits) throws(ReducerError) {
        let length = key.utf8.count
        if length == 0 { throw .emptyKey(index: index) }
        if length > limits.maxKeyBytes { throw .limitExceeded(index: index, limit: .keyBytes, value: limits.maxKeyBytes) }
    }

    /// Refuses a new key when the map is at its cap; a key already there may always change. The count is tested
    /// first, so below the cap this costs no lookup.
    @inline(__always)
    static func requireRoom<Value>(
        in map: CompactMap<Value>, for key: String, _ limit: ContextLimits.Limit, _ limits: ContextLimits,
        _ index: Int
    ) throws(ReducerError) {
        let cap = limits[limit]
        if map.count >= cap, !map.contains(key) { throw .limitExceeded(index: index, limit: limit, value: cap) }
    }

    /// Adds a donation instant to an event's history: ascending even when donations arrive backdated, then
    /// bounded by the policy (the oldest go first, by age and then by count).
    ///
    /// The history is shared with the state the write replaces (kept for its flag diff); `DonationHistory` makes
    /// an in-order donation copy its short tail, not the whole history, and the oldest leave by moving a start.
    static func record(_ instant: Instant, into recent: inout DonationHistory, now: Instant, policy: HistoryPolicy) {
        let count = recent.count
        let position = recent.last.map { instant < $0 } == true ? DonationSummary.firstIndex(in: recent) { $0 > instant } : count
        let oldest = now - policy.maxAge
        // The history with the instant in it is ascending, so what is too old is a run at its front.
        var drop = 0
        while drop < count, recent[drop] < oldest { drop += 1 }
        if instant < oldest { drop += 1 }
        drop = min(count + 1, max(drop, count + 1 - policy.maxEntries))
        if drop == count + 1 {
            recent = []
            return
        }
        recent.insert(instant, at: position)
        if drop > 0 { recent.removeFirst(drop) }
    }
}
