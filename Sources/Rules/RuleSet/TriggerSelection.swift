/// Some of a rule set's triggers, in declaration order, read in place: what `RuleSet.triggers(listeningTo:)` gives
/// each donation without building an array of triggers (two a donation, each an allocation).
public struct TriggerSelection: RandomAccessCollection, Sendable {
    let positions: [Int]
    let triggers: [Trigger]

    public var startIndex: Int { 0 }
    public var endIndex: Int { positions.count }

    public subscript(index: Int) -> Trigger { triggers[positions[index]] }
}
