/// Serializes `SSEEvent`s to the `text/event-stream` wire format.
///
/// `data` is split on every line break (CRLF, CR or LF) into `data:` lines, which the client joins back with LF.
/// `id` and `event` cannot carry line breaks, so those (and NUL in `id`, which makes clients ignore the field) are
/// removed rather than allowed to inject fields.
public enum SSEEncoder {
    public static func encode(_ event: SSEEvent) -> [UInt8] {
        var out: [UInt8] = []
        encode(event, into: &out)
        return out
    }

    public static func encode(_ event: SSEEvent, into out: inout [UInt8]) {
        if let comment = event.comment {
            for line in lines(of: comment) {
                out.append(UInt8(ascii: ":"))
                if !line.isEmpty { out.append(UInt8(ascii: " ")) }
                out.append(contentsOf: line)
                out.append(ASCII.lf)
            }
        }
        if let retry = event.retry {
            out.append(contentsOf: "retry: \(max(retry, 0))\n".utf8)
        }
        if let id = event.id {
            out.append(contentsOf: "id: ".utf8)
            out.append(contentsOf: id.utf8.filter { $0 != ASCII.cr && $0 != ASCII.lf && $0 != 0 })
            out.append(ASCII.lf)
        }
        if let name = event.event {
            out.append(contentsOf: "event: ".utf8)
            out.append(contentsOf: name.utf8.filter { $0 != ASCII.cr && $0 != ASCII.lf })
            out.append(ASCII.lf)
        }
        if let data = event.data {
            for line in lines(of: data) {
                out.append(contentsOf: "data: ".utf8)
                out.append(contentsOf: line)
                out.append(ASCII.lf)
            }
        }
        out.append(ASCII.lf)
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
