/// The triggers a donation of one event reaches (`RuleSet.listeners(of:)`), in declaration order, read in place:
/// the triggers naming the event merged, as it is iterated, with those listening to every event. No array is built
/// per donation, whatever the mix.
public struct TriggerSelection: Sequence, Sendable {
    /// Ascending positions in `triggers`; the two lists share none.
    let named: [Int]
    let everyEvent: [Int]
    let triggers: [Trigger]

    public var underestimatedCount: Int { named.count + everyEvent.count }

    public func makeIterator() -> Iterator { Iterator(selection: self) }

    public struct Iterator: IteratorProtocol {
        let selection: TriggerSelection
        var left = 0
        var right = 0

        public mutating func next() -> Trigger? {
            let named = selection.named, everyEvent = selection.everyEvent
            if left < named.count, right == everyEvent.count || named[left] < everyEvent[right] {
                left += 1
                return selection.triggers[named[left - 1]]
            }
            guard right < everyEvent.count else { return nil }
            right += 1
            return selection.triggers[everyEvent[right - 1]]
        }
    }
}
