/// A `Date` field line as a response head carries it: `Date: ` + the date + CRLF, CR and LF dropped from the date
/// as from any field value. Made once a second by a server's date cache (`HTTPDate` text), so a response copies
/// the line instead of writing the field (measured, checked for line breaks, copied) each time.
public struct DateLine: Sendable {
    public let bytes: [UInt8]

    public init(_ date: String) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(date.utf8.count + 8)
        bytes.append(contentsOf: "Date: ".utf8)
        for byte in date.utf8 where byte != ASCII.cr && byte != ASCII.lf { bytes.append(byte) }
        bytes.append(ASCII.cr)
        bytes.append(ASCII.lf)
        self.bytes = bytes
    }
}
