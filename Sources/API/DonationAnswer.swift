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
        out.reserveCapacity(160 + 64 * changes.count + 64 * fired.count)
        out.append(contentsOf: #"{"seq":"#.utf8)
        out.append(contentsOf: String(seq).utf8)
        out.append(contentsOf: #","event":"#.utf8)
        if let summary {
            ContextJSON.writeShortSummary(summary, into: &out)
        } else {
            out.append(contentsOf: "null".utf8)
        }
        out.append(contentsOf: #","changed":["#.utf8)
        for (index, change) in changes.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            change.write(into: &out)
        }
        out.append(contentsOf: #"],"fired":["#.utf8)
        for (index, fire) in fired.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: #"{"trigger":"#.utf8)
            JSONWriter.writeString(fire.trigger, into: &out)
            out.append(contentsOf: #","at":""#.utf8)
            ISO8601.write(fire.at, into: &out)
            out.append(contentsOf: #""}"#.utf8)
        }
        out.append(contentsOf: "]}".utf8)
        return out
    }
}
