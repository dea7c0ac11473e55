import Engine
import Rules

/// The body of a display event's answer, `{"seq", "flag", "display", "changed"}` (docs/api.md, "Display events"):
/// the flag's answer after the event, its display state, and every flag the event changed, in a donation answer's
/// house style (bytes written once, no tree built).
enum DisplayAnswer {
    static func encode(seq: UInt64, evaluation: Evaluation, state: DisplayState, changes: [FlagChange]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256 + 64 * changes.count)
        out.append(contentsOf: #"{"seq":"#.utf8)
        out.append(contentsOf: String(seq).utf8)
        out.append(contentsOf: #","flag":{"key":"#.utf8)
        JSONWriter.writeString(evaluation.key, into: &out)
        out.append(UInt8(ascii: ","))
        evaluation.writeJSONMembers(into: &out)
        out.append(contentsOf: #"},"display":"#.utf8)
        JSONWriter.write(state.json, into: &out)
        out.append(contentsOf: #","changed":["#.utf8)
        for (index, change) in changes.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            change.write(into: &out)
        }
        out.append(contentsOf: "]}".utf8)
        return out
    }
}
