/// A `Date` field line as a response head carries it: `Date: ` + the date + CRLF, CR and LF dropped from the date
/// as from any field value. Made once a second by a server's date cache (`HTTPDate` text), so a response copies
/// the line instead of writing the field (measured, checked for line breaks, copied) each time.
///
/// Its bytes are held inline, not in an array: a connection keeps its copy of the line and writes every response's
/// head from it, and an array's storage was retained and released around each (two atomic operations a response).
public struct DateLine: Sendable {
    /// The longest line held inline: `Date: `, an IMF-fixdate's 29 bytes and CRLF fit with room to spare. A longer
    /// one (a date no `HTTPDate` makes) is held in an array instead.
    public static let capacity = 48

    private var storage: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0)
    private var spilled: [UInt8]?
    /// How many bytes the line is.
    public private(set) var count = 0

    public init(_ date: String) {
        var line: [UInt8] = []
        line.reserveCapacity(date.utf8.count + 8)
        line.append(contentsOf: "Date: ".utf8)
        for byte in date.utf8 where byte != ASCII.cr && byte != ASCII.lf { line.append(byte) }
        line.append(ASCII.cr)
        line.append(ASCII.lf)
        count = line.count
        guard line.count <= Self.capacity else {
            spilled = line
            return
        }
        withUnsafeMutableBytes(of: &storage) { raw in
            line.withUnsafeBytes { raw.copyMemory(from: $0) }
        }
    }

    /// Lends the line's bytes.
    public func withBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        if let spilled { return spilled.withUnsafeBufferPointer(body) }
        return withUnsafeBytes(of: storage) { raw in
            body(UnsafeBufferPointer(start: raw.baseAddress?.assumingMemoryBound(to: UInt8.self), count: count))
        }
    }

    /// The line's bytes as an array (tests, diagnostics).
    public var bytes: [UInt8] { withBytes { Array($0) } }
}
