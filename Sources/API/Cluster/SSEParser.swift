import HTTP

/// An incremental reader of `text/event-stream` bytes (WHATWG HTML §9.2.6 "Interpreting an event stream"), for
/// relaying another member's stream: fed arbitrary byte slices, it returns the events whose blank line has arrived.
/// Comments and `retry:` are dropped (the merged stream sends its own); a field without a colon is a name with an
/// empty value, as the standard says.
///
/// What it holds between feeds is bounded (`maxEventBytes`): a member that sends a line without end, or `data:`
/// lines without the blank line that ends their event, would otherwise grow this replica for as long as it sends.
struct SSEParser {
    /// The event being read: more than this, its lines included, and the stream is not one a member sends.
    struct EventTooLarge: Error, Equatable {}

    /// An event of a member's global stream is a flag change or a rules notice, a few hundred bytes; a megabyte
    /// leaves room for the largest rule set's notice many times over.
    static let defaultMaxEventBytes = 1 << 20

    let maxEventBytes: Int
    private var line: [UInt8] = []
    private var sawCarriageReturn = false
    private var pending = SSEEvent()
    private var dataLines: [String] = []
    /// Bytes held for the event being read: its kept field lines plus the open line.
    private var heldBytes = 0
    private var hasField = false

    init(maxEventBytes: Int = SSEParser.defaultMaxEventBytes) {
        self.maxEventBytes = maxEventBytes
    }

    /// The events whose blank line arrived in `bytes`; throws once the event being read passes `maxEventBytes`,
    /// after which the parser is spent (its caller ends the stream).
    mutating func feed(_ bytes: [UInt8]) throws(EventTooLarge) -> [SSEEvent] {
        var events: [SSEEvent] = []
        for byte in bytes {
            if sawCarriageReturn {
                sawCarriageReturn = false
                // CRLF is one line end: the CR already ended the line.
                if byte == UInt8(ascii: "\n") { continue }
            }
            switch byte {
            case UInt8(ascii: "\r"):
                sawCarriageReturn = true
                endLine(into: &events)
            case UInt8(ascii: "\n"):
                endLine(into: &events)
            default:
                guard heldBytes < maxEventBytes else { throw EventTooLarge() }
                line.append(byte)
                heldBytes += 1
            }
        }
        return events
    }

    private mutating func endLine(into events: inout [SSEEvent]) {
        defer { line.removeAll(keepingCapacity: true) }
        guard !line.isEmpty else {
            if hasField {
                if !dataLines.isEmpty { pending.data = dataLines.joined(separator: "\n") }
                events.append(pending)
            }
            pending = SSEEvent()
            dataLines = []
            hasField = false
            heldBytes = 0
            return
        }
        // A comment or an unknown field is dropped, and so are its bytes: only what the event keeps counts.
        if line.first == UInt8(ascii: ":") {
            heldBytes -= line.count
            return
        }
        let colon = line.firstIndex(of: UInt8(ascii: ":"))
        let name = String(decoding: line[..<(colon ?? line.count)], as: UTF8.self)
        var valueStart = colon.map { $0 + 1 } ?? line.count
        if valueStart < line.count, line[valueStart] == UInt8(ascii: " ") { valueStart += 1 }
        let value = String(decoding: line[valueStart...], as: UTF8.self)
        switch name {
        case "id":
            pending.id = value
            hasField = true
        case "event":
            pending.event = value
            hasField = true
        case "data":
            dataLines.append(value)
            hasField = true
        default:
            heldBytes -= line.count
        }
        // A kept line stays counted whole, its name included: a little over what the event holds.
    }
}
