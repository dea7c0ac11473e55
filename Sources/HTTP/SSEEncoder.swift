/// Serializes `SSEEvent`s to the `text/event-stream` wire format.
///
/// `data` is split on every line break (CRLF, CR or LF) into `data:` lines, which the client joins back with LF.
/// `id` and `event` cannot carry line breaks, so those (and NUL in `id`, which makes clients ignore the field) are
/// removed rather than allowed to inject fields.
public enum SSEEncoder {
    /// The event in a buffer of exactly its size, allocated once. An event's bytes may be retained for minutes (a
    /// stream's resume window keeps thousands), and a buffer grown by appends can end up twice the event's size:
    /// the final line feed after a data line that just filled it doubles it.
    public static func encode(_ event: SSEEvent) -> [UInt8] {
        let fields = Fields(event)
        var out: [UInt8] = []
        out.reserveCapacity(fields.byteCount)
        fields.write(into: &out)
        return out
    }

    /// Appends the event to `out`, which grows as arrays do (amortized, for a caller appending many events).
    public static func encode(_ event: SSEEvent, into out: inout [UInt8]) {
        Fields(event).write(into: &out)
    }

    /// An event's lines, split and cleaned once, so its size is known before a byte is written.
    private struct Fields {
        let comment: [ArraySlice<UInt8>]
        let retry: [UInt8]?
        let id: [UInt8]?
        let name: [UInt8]?
        let data: [ArraySlice<UInt8>]

        init(_ event: SSEEvent) {
            comment = event.comment.map(SSEEncoder.lines(of:)) ?? []
            retry = event.retry.map { Array("retry: \(max($0, 0))\n".utf8) }
            id = event.id.map { $0.utf8.filter { $0 != ASCII.cr && $0 != ASCII.lf && $0 != 0 } }
            name = event.event.map { $0.utf8.filter { $0 != ASCII.cr && $0 != ASCII.lf } }
            data = event.data.map(SSEEncoder.lines(of:)) ?? []
        }

        /// What `write` appends, byte for byte.
        var byteCount: Int {
            var count = 1
            for line in comment { count += (line.isEmpty ? 2 : 3) + line.count }
            count += retry?.count ?? 0
            if let id { count += 5 + id.count }
            if let name { count += 8 + name.count }
            for line in data { count += 7 + line.count }
            return count
        }

        func write(into out: inout [UInt8]) {
            for line in comment {
                out.append(UInt8(ascii: ":"))
                if !line.isEmpty { out.append(UInt8(ascii: " ")) }
                out.append(contentsOf: line)
                out.append(ASCII.lf)
            }
            if let retry { out.append(contentsOf: retry) }
            if let id {
                out.append(contentsOf: "id: ".utf8)
                out.append(contentsOf: id)
                out.append(ASCII.lf)
            }
            if let name {
                out.append(contentsOf: "event: ".utf8)
                out.append(contentsOf: name)
                out.append(ASCII.lf)
            }
            for line in data {
                out.append(contentsOf: "data: ".utf8)
                out.append(contentsOf: line)
                out.append(ASCII.lf)
            }
            out.append(ASCII.lf)
        }
    }

    /// Splits on CRLF, CR and LF, keeping empty lines (an empty data line is meaningful).
    static func lines(of text: String) -> [ArraySlice<UInt8>] {
        let bytes = Array(text.utf8)
        var result: [ArraySlice<UInt8>] = []
        var start = 0
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == ASCII.cr || byte == ASCII.lf {
                result.append(bytes[start..<index])
                if byte == ASCII.cr, index + 1 < bytes.count, bytes[index + 1] == ASCII.lf { index += 1 }
                start = index + 1
            }
            index += 1
        }
        result.append(bytes[start..<bytes.count])
        return result
    }
}
