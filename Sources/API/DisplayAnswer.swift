import Engine
import Rules

/// The body of a display event's answer, `{"seq", "flag", "display", "changed"}` (docs/api.md, "Display events"):
/// the flag's answer after the event, its display state, and every flag the event changed, in a donation answer's
/// house style (bytes written once, no tree built).
enum DisplayAnswer {
    static func encode(seq: UInt64, evaluation: Evaluation, state: DisplayState, changes: [FlagChange]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256 + 64 * changes.count)
        JSONWriter.append(#"{"seq":"#, into: &out)
        JSONWriter.appendDecimal(seq, into: &out)
        JSONWriter.append(#","flag":{"key":"#, into: &out)
        JSONWriter.writeString(evaluation.key, into: &out)
        out.append(UInt8(ascii: ","))
        evaluation.writeJSONMembers(into: &out)
        JSONWriter.append(#"},"display":"#, into: &out)
        JSONWriter.write(state.json, into: &out)
        JSONWriter.append(#","changed":["#, into: &out)
        for (index, change) in changes.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            change.write(into: &out)
        }
        JSONWriter.append("]}", into: &out)
        return out
    }
}
