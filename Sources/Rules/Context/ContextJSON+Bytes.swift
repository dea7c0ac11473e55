extension ContextJSON {
    /// `summary(_:includeRecent: false)` written straight into a JSON body, member for member and byte for byte:
    /// every donation answer carries it, and building it as a `JSONValue` tree (two dates as `String`s, three
    /// objects) cost more than the rest of the answer.
    public static func writeShortSummary(_ summary: DonationSummary, into out: inout [UInt8]) {
        out.append(contentsOf: #"{"count":"#.utf8)
        out.append(contentsOf: String(summary.count).utf8)
        out.append(contentsOf: #","first":"#.utf8)
        writeMark(summary.first, into: &out)
        out.append(contentsOf: #","last":"#.utf8)
        writeMark(summary.last, into: &out)
        out.append(UInt8(ascii: "}"))
    }

    /// `mark` as bytes, `null` for none.
    private static func writeMark(_ mark: DonationSummary.Mark?, into out: inout [UInt8]) {
        guard let mark else {
            out.append(contentsOf: "null".utf8)
            return
        }
        out.append(contentsOf: #"{"at":""#.utf8)
        ISO8601.write(mark.at, into: &out)
        out.append(contentsOf: #"","appVersion":"#.utf8)
        if let version = mark.appVersion {
            JSONWriter.writeString(version, into: &out)
        } else {
            out.append(contentsOf: "null".utf8)
        }
        out.append(UInt8(ascii: "}"))
    }
}
