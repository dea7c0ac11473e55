import Rules

/// Delayed trigger fires waiting for their instant (docs/rules.md, "Triggers"), by id and by (user, trigger), so
/// the delay mode can see what is already pending. Pure: the timekeeper owns one under its lock.
///
/// Users and trigger keys are held as bytes (`ByteKey`): NFC and NFD spellings of one id are two users, and one
/// must never replace or suppress the other's fire.
struct PendingFires {
    struct Fire: Sendable, Equatable {
        let id: Int
        let user: String
        let trigger: String
        let due: Instant
        /// When the qualifying donation scheduled it.
        let scheduledAt: Instant
        /// The donation's request (user id, app version), for the re-check when the delay ends.
        let request: RequestAttributes
    }

    private struct Owner: Hashable {
        let user: ByteKey
        let trigger: ByteKey
    }

    private var byID: [Int: Fire] = [:]
    /// Ids per (user, trigger), oldest first.
    private var byOwner: [Owner: [Int]] = [:]
    private var lastID = 0

    var count: Int { byID.count }
    var all: [Fire] { byID.values.sorted { ($0.due, $0.id) < ($1.due, $1.id) } }

    /// A qualifying donation asks for a fire at `due`. Returns the new fire (`nil` when the mode ignores it) and the
    /// ids of the pending fires it replaces, which the caller unschedules.
    mutating func add(
        user: String, trigger: String, due: Instant, request: RequestAttributes, mode: Trigger.DelayMode, scheduledAt: Instant? = nil
    ) -> (fire: Fire?, replaced: [Int]) {
        let owner = Owner(user: ByteKey(user), trigger: ByteKey(trigger))
        var replaced: [Int] = []
        switch mode {
        case .each:
            break
        case .restart:
            replaced = byOwner[owner] ?? []
            for id in replaced { byID[id] = nil }
            byOwner[owner] = nil
        case .first:
            if let pending = byOwner[owner], !pending.isEmpty { return (nil, []) }
        }
        lastID += 1
        let fire = Fire(id: lastID, user: user, trigger: trigger, due: due, scheduledAt: scheduledAt ?? due, request: request)
        byID[fire.id] = fire
        byOwner[owner, default: []].append(fire.id)
        return (fire, replaced)
    }

    /// The pending fire with that id, left in place.
    func fire(_ id: Int) -> Fire? { byID[id] }

    /// Removes and returns a fire: it came due, or it was cancelled.
    mutating func take(_ id: Int) -> Fire? {
        guard let fire = byID.removeValue(forKey: id) else { return nil }
        let owner = Owner(user: ByteKey(fire.user), trigger: ByteKey(fire.trigger))
        // In place, through the index: a copy taken out and stored back was a second hash and a new buffer per fire.
        if let index = byOwner.index(forKey: owner) {
            byOwner.values[index].removeAll { $0 == id }
            if byOwner.values[index].isEmpty { byOwner.remove(at: index) }
        }
        return fire
    }
}
