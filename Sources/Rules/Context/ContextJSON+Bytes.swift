extension ContextJSON {
    /// The most bytes `writeShortSummary` writes for `summary`.
    public static func shortSummaryByteBound(_ summary: DonationSummary) -> Int {
        // `{"count":` `,"first":` `,"last":` `}` (27 bytes) and the count's digits, then each mark.
        27 + ByteCursor.decimalByteBound + markByteBound(summary.first) + markByteBound(summary.last)
    }

    /// `summary(_:includeRecent: false)` written straight into a JSON body, member for member and byte for byte:
    /// every donation answer carries it, and building it as a `JSONValue` tree (two dates as `String`s, three
    /// objects) cost more than the rest of the answer. The cursor has `shortSummaryByteBound(summary)` bytes of
    /// room.
    public static func writeShortSummary(_ summary: DonationSummary, into cursor: inout ByteCursor) {
        cursor.write(#"{"count":"#)
        cursor.writeDecimal(summary.count)
        cursor.write(#","first":"#)
        writeMark(summary.first, into: &cursor)
        cursor.write(#","last":"#)
        writeMark(summary.last, into: &cursor)
        cursor.write(UInt8(ascii: "}"))
    }

    /// The most bytes `writeMark` writes: `{"at":"` `","appVersion":` `}` (23 bytes) around the date and the
    /// version, or `null`.
    private static func markByteBound(_ mark: DonationSummary.Mark?) -> Int {
        guard let mark else { return 4 }
        return 23 + ISO8601.maxByteCount + (mark.appVersion.map(JSONWriter.stringByteBound) ?? 4)
    }

    /// `mark` as bytes, `null` for none.
    private static func writeMark(_ mark: DonationSummary.Mark?, into cursor: inout ByteCursor) {
        guard let mark else {
            cursor.write("null")
            return
        }
        cursor.write(#"{"at":""#)
        ISO8601.write(mark.at, into: &cursor)
        cursor.write(#"","appVersion":"#)
        if let version = mark.appVersion {
            JSONWriter.writeString(version, into: &cursor)
        } else {
            cursor.write("null")
        }
        cursor.write(UInt8(ascii: "}"))
    }
}
