/// The triggers a donation of one event reaches, found with one lookup: each write asked every trigger in turn
/// (a table lookup by key and a search of its `on` list, per trigger, twice per donation).
///
/// Holds positions in the set's declaration order, never lists of triggers per event: a set with many triggers that
/// listen to every event and many named events would otherwise hold their product. Memory is the sum of the `on`
/// lists plus one entry per distinct event.
struct TriggerIndex: Sendable {
    /// Positions of the triggers naming each event, ascending. Keys are bytes (README, "Users and keys"): an NFD
    /// spelling of an event an NFC trigger names reaches only the triggers listening to every event.
    private let named: ByteKeyedTable<[Int]>
    /// Positions of the triggers with an empty `on` list, ascending.
    private let everyEvent: [Int]

    init(_ triggers: [Trigger]) {
        var named: [ByteKey: [Int]] = [:]
        var order: [ByteKey] = []
        var everyEvent: [Int] = []
        for (position, trigger) in triggers.enumerated() {
            if trigger.on.isEmpty { everyEvent.append(position) }
            for event in trigger.on {
                let key = ByteKey(event)
                if named[key] == nil { order.append(key) }
                // A trigger naming an event twice is listed once.
                if named[key, default: []].last != position { named[key, default: []].append(position) }
            }
        }
        self.named = ByteKeyedTable(order.map { ($0.string, named[$0]!) })
        self.everyEvent = everyEvent
    }

    /// The positions of the triggers listening to `event`, ascending: the named ones merged with the every-event ones.
    func positions(listeningTo event: String) -> [Int] {
        guard let named = named[event] else { return everyEvent }
        if everyEvent.isEmpty { return named }
        var merged: [Int] = []
        merged.reserveCapacity(named.count + everyEvent.count)
        var left = 0, right = 0
        while left < named.count || right < everyEvent.count {
            if right == everyEvent.count || (left < named.count && named[left] < everyEvent[right]) {
                merged.append(named[left])
                left += 1
            } else {
                merged.append(everyEvent[right])
                right += 1
            }
        }
        return merged
    }
}
