/// The last request's field section on a connection, byte for byte, with everything the parser made of it.
///
/// A client sends the same field lines on request after request (the same `Host`, `User-Agent`, `Accept`, app
/// version): parsing them again, with a string per value, name lookups, the framing checks and the `Host` check,
/// was some 2 300 instructions of an 18 000-instruction GET with two field lines (callgrind). What the parser makes of a field section depends on
/// its bytes, the HTTP version and the parser's limits alone (the limits never change for one parser), so equal
/// bytes under the same version give the same fields, framing, keep-alive and expectation, and none of them can
/// fail where they passed before. The request line is parsed and checked every time.
///
/// Only a small section is kept (the parser's `recycledHeadBytes`), so an idle connection holds a bounded amount.
struct RepeatedFieldSection: Sendable {
    /// The section's bytes, from the first field line to the end of the last (CRLFs between lines included).
    private let bytes: [UInt8]
    /// Where each field line ends in `bytes` (its CRLF not counted); the next starts two bytes later. Two bytes a
    /// line: a kept section is at most `recycledHeadBytes`, and ranges of two words each would have made a hundred
    /// short lines a larger burden per idle connection than the section itself.
    private let lineEnds: [UInt16]
    private let version: HTTPVersion
    /// Shares its list with the head the parser made, until one of them changes it.
    let headers: HTTPHeaders
    let framing: BodyFraming
    /// As the fields and version have it, before the method's say (`CONNECT` closes).
    let keepAlive: Bool
    let expectsContinue: Bool

    init(
        bytes: UnsafeBufferPointer<UInt8>, lineEnds: [UInt16], version: HTTPVersion, headers: HTTPHeaders, framing: BodyFraming,
        keepAlive: Bool, expectsContinue: Bool
    ) {
        self.bytes = Array(bytes)
        self.lineEnds = lineEnds
        self.version = version
        self.headers = headers
        self.framing = framing
        self.keepAlive = keepAlive
        self.expectsContinue = expectsContinue
    }

    /// Whether `version` is the one the section was kept under (its bytes being known to match).
    func matches(version: HTTPVersion) -> Bool { version == self.version }

    /// Where the head ends when `buffer` holds, from `start` (just past the request line), this section and the empty
    /// line that ends it; `nil` otherwise, or while not all of it has arrived. The line scan then has nothing to find.
    func headEnd(in buffer: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        let sectionEnd = start + bytes.count
        guard start >= 0, sectionEnd + 4 <= buffer.count, let base = buffer.baseAddress else { return nil }
        guard base[sectionEnd] == ASCII.cr, base[sectionEnd + 1] == ASCII.lf, base[sectionEnd + 2] == ASCII.cr,
            base[sectionEnd + 3] == ASCII.lf
        else { return nil }
        let incoming = UnsafeBufferPointer(start: base + start, count: bytes.count)
        guard bytes.withUnsafeBufferPointer({ ByteSearch.equal($0, incoming) }) else { return nil }
        return sectionEnd + 4
    }

    /// The field lines' ranges in a buffer holding this section from `start`, as the line scan would find them.
    func appendLines(startingAt start: Int, to ranges: inout [Range<Int>]) {
        var lineStart = start
        for end in lineEnds {
            ranges.append(lineStart..<(start + Int(end)))
            lineStart = start + Int(end) + 2
        }
    }

    /// Whether `section`, under `version`, is the section kept.
    func matches(_ section: UnsafeBufferPointer<UInt8>, version: HTTPVersion) -> Bool {
        guard version == self.version, section.count == bytes.count else { return false }
        return bytes.withUnsafeBufferPointer { ByteSearch.equal($0, section) }
    }
}
