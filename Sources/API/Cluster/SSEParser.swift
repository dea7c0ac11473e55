import HTTP

/// An incremental reader of `text/event-stream` bytes (WHATWG HTML §9.2.6 "Interpreting an event stream"), for
/// relaying another member's stream: fed arbitrary byte slices, it returns the events whose blank line has arrived.
/// Comments and `retry:` are dropped (the merged stream sends its own); a field without a colon is a name with an
/// empty value, as the standard says.
struct SSEParser {
    private var line: [UInt8] = []
    private var sawCarriageReturn = false
    private var pending = SSEEvent()
    private var dataLines: [String] = []
    private var hasField = false

    mutating func feed(_ bytes: [UInt8]) -> [SSEEvent] {
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
                line.append(byte)
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
            return
        }
        if line.first == UInt8(ascii: ":") { return }
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
            break
        }
    }
}
