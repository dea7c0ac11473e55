import Engine
import Rules

/// The body of a donation's answer, `{"seq", "event", "changed", "fired"}` (docs/api.md, "Donations"), written
/// straight into one byte buffer. Every donation is answered with it, and building it as a `JSONValue` tree first
/// (a dozen small objects, its dates as `String`s) cost as much as the rest of the answer; the bytes are the same
/// as that tree written by `JSONWriter`, member order included.
enum DonationAnswer {
    /// `summary` is the donated event's new summary (`null` when the write left none).
    static func encode(seq: UInt64, summary: DonationSummary?, changes: [FlagChange], fired: [(trigger: String, at: Instant)]) -> [UInt8] {
        // The part every answer has is written through a cursor into space sized for its longest form: appended
        // piece by piece, its twenty-odd appends cost more than the rest of the answer. Changes and fires, in few
        // answers, are appended after it (their room reserved in the same allocation).
        // `{"seq":` `,"event":` `,"changed":[` (28 bytes), the seq's digits, the summary or `null`.
        let opening = 28 + ByteCursor.decimalByteBound + (summary.map(ContextJSON.shortSummaryByteBound) ?? 4)
        var out = ByteCursor.bytes(capacity: opening, extra: 16 + 64 * changes.count + 64 * fired.count) { cursor in
            cursor.write(#"{"seq":"#)
            cursor.writeDecimal(seq)
            cursor.write(#","event":"#)
            if let summary {
                ContextJSON.writeShortSummary(summary, into: &cursor)
            } else {
                cursor.write("null")
            }
            cursor.write(#","changed":["#)
        }
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
