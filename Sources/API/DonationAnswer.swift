import Engine
import Rules

/// The body of a donation's answer, `{"seq", "event", "changed", "fired"}` (docs/api.md, "Donations"), written
/// straight into one byte buffer. Every donation is answered with it, and building it as a `JSONValue` tree first
/// (a dozen small objects, its dates as `String`s) cost as much as the rest of the answer; the bytes are the same
/// as that tree written by `JSONWriter`, member order included.
enum DonationAnswer {
    /// `summary` is the donated event's new summary (`null` when the write left none).
    static func encode(seq: UInt64, summary: DonationSummary?, changes: [FlagChange], fired: [(trigger: String, at: Instant)]) -> [UInt8] {
        var out: [UInt8] = []
        // A repeat donation's answer with a short app version is ~175 bytes: 160 made every answer grow once.
        out.reserveCapacity(256 + 64 * changes.count + 64 * fired.count)
        JSONWriter.append(#"{"seq":"#, into: &out)
        JSONWriter.appendDecimal(seq, into: &out)
        JSONWriter.append(#","event":"#, into: &out)
        if let summary {
            ContextJSON.writeShortSummary(summary, into: &out)
        } else {
            JSONWriter.append("null", into: &out)
        }
        JSONWriter.append(#","changed":["#, into: &out)
        for (index, change) in changes.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            change.write(into: &out)
        }
        JSONWriter.append(#"],"fired":["#, into: &out)
        for (index, fire) in fired.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            JSONWriter.append(#"{"trigger":"#, into: &out)
            JSONWriter.writeString(fire.trigger, into: &out)
            JSONWriter.append(#","at":""#, into: &out)
            ISO8601.write(fire.at, into: &out)
            JSONWriter.append(#""}"#, into: &out)
        }
        JSONWriter.append("]}", into: &out)
        return out
    }
}
