/// The triggers a donation of one event reaches, found with one lookup: each write asked every trigger in turn
/// (a table lookup by key and a search of its `on` list, per trigger, twice per donation).
///
/// Holds positions in the set's declaration order, never lists of triggers per event: a set with many triggers that
/// listen to every event and many named events would otherwise hold their product. Memory is the sum of the `on`
/// lists plus one small array per distinct event, in proportion to the rule file's own parsed source.
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

    /// The triggers of `triggers` (the set's, in declaration order) listening to `event`.
    func selection(listeningTo event: String, in triggers: [Trigger]) -> TriggerSelection {
        TriggerSelection(named: named[event] ?? [], everyEvent: everyEvent, triggers: triggers)
    }
}
