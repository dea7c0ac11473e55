extension ContextJSON {
    /// `summary(_:includeRecent: false)` written straight into a JSON body, member for member and byte for byte:
    /// every donation answer carries it, and building it as a `JSONValue` tree (two dates as `String`s, three
    /// objects) cost more than the rest of the answer.
    public static func writeShortSummary(_ summary: DonationSummary, into out: inout [UInt8]) {
        JSONWriter.append(#"{"count":"#, into: &out)
        JSONWriter.appendDecimal(summary.count, into: &out)
        JSONWriter.append(#","first":"#, into: &out)
        writeMark(summary.first, into: &out)
        JSONWriter.append(#","last":"#, into: &out)
        writeMark(summary.last, into: &out)
        out.append(UInt8(ascii: "}"))
    }

    /// `mark` as bytes, `null` for none.
    private static func writeMark(_ mark: DonationSummary.Mark?, into out: inout [UInt8]) {
        guard let mark else {
            JSONWriter.append("null", into: &out)
            return
        }
        JSONWriter.append(#"{"at":""#, into: &out)
        ISO8601.write(mark.at, into: &out)
        JSONWriter.append(#"","appVersion":"#, into: &out)
        if let version = mark.appVersion {
            JSONWriter.writeString(version, into: &out)
        } else {
            JSONWriter.append("null", into: &out)
        }
        out.append(UInt8(ascii: "}"))
    }
}
