/// The reading side of one event-stream subscription in the load client: the response head, then chunked (or raw)
/// body bytes, then SSE lines. It reports the number each `data:` line carries under `"seq":` (specd) or `"bench":`
/// (the nchan payload), which is the key the publisher timed. Incremental: fed whatever `read` returned.
struct SSEStreamReader {
    private enum Phase {
        case head, chunkSize
        case chunkData(Int)
        case chunkEnd, raw, finished
    }

    private var phase = Phase.head
    private var head: [UInt8] = []
    private var sizeDigits = 0
    private var sizeValue = 0
    private var line: [UInt8] = []
    private var chunkEndSeen = 0
    private(set) var status = 0
    private(set) var failed = false

    var headReceived: Bool {
        if case .head = phase { return false }
        return true
    }

    /// Feeds bytes; calls `deliver` with each event key found.
    mutating func feed(_ bytes: UnsafeRawBufferPointer, deliver: (Int) -> Void) {
        var index = 0
        let count = bytes.count
        while index < count, !failed {
            switch phase {
            case .head:
                let byte = bytes[index]
                index += 1
                head.append(byte)
                if head.count >= 4, head[head.count - 4] == 13, head[head.count - 3] == 10, byte == 10, head[head.count - 2] == 13 {
                    finishHead()
                }
            case .chunkSize:
                let byte = bytes[index]
                index += 1
                if let digit = hexValue(byte), chunkEndSeen == 0 {
                    sizeValue = sizeValue * 16 + digit
                    sizeDigits += 1
                } else if byte == 10 {
                    guard sizeDigits > 0 else {
                        failed = true
                        return
                    }
                    phase = sizeValue == 0 ? .finished : .chunkData(sizeValue)
                    sizeValue = 0
                    sizeDigits = 0
                    chunkEndSeen = 0
                } else {
                    // `\r` or a chunk extension: skip to the line end.
                    chunkEndSeen = 1
                }
            case .chunkData(let remaining):
                let take = min(remaining, count - index)
                consumeBody(UnsafeRawBufferPointer(rebasing: bytes[index..<(index + take)]), deliver: deliver)
                index += take
                phase = take == remaining ? .chunkEnd : .chunkData(remaining - take)
            case .chunkEnd:
                if bytes[index] == 10 { phase = .chunkSize }
                index += 1
            case .raw:
                consumeBody(UnsafeRawBufferPointer(rebasing: bytes[index..<count]), deliver: deliver)
                index = count
            case .finished:
                return
            }
        }
    }

    private mutating func finishHead() {
        let text = String(decoding: head, as: UTF8.self)
        let statusLine = text.prefix { $0 != "\r" }
        let parts = statusLine.split(separator: " ")
        status = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
        if status != 200 { failed = true }
        phase = text.lowercased().contains("transfer-encoding: chunked") ? .chunkSize : .raw
        head = []
    }

    private mutating func consumeBody(_ bytes: UnsafeRawBufferPointer, deliver: (Int) -> Void) {
        for byte in bytes {
            if byte == 10 {
                if let key = Self.key(in: line) { deliver(key) }
                line.removeAll(keepingCapacity: true)
            } else {
                line.append(byte)
            }
        }
    }

    /// The integer after `"seq":` or `"bench":` in a `data:` line.
    static func key(in line: [UInt8]) -> Int? {
        guard line.starts(with: Array("data:".utf8)) else { return nil }
        for marker in [Array("\"seq\":".utf8), Array("\"bench\":".utf8)] {
            guard let start = find(marker, in: line) else { continue }
            var index = start + marker.count
            while index < line.count, line[index] == 32 { index += 1 }
            var value = 0
            var digits = 0
            while index < line.count, line[index] >= 48, line[index] <= 57 {
                value = value * 10 + Int(line[index] - 48)
                digits += 1
                index += 1
            }
            if digits > 0 { return value }
        }
        return nil
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        outer: for start in 0...(haystack.count - needle.count) {
            for offset in 0..<needle.count where haystack[start + offset] != needle[offset] { continue outer }
            return start
        }
        return nil
    }

    private func hexValue(_ byte: UInt8) -> Int? {
        switch byte {
        case 48...57: Int(byte - 48)
        case 65...70: Int(byte - 55)
        case 97...102: Int(byte - 87)
        default: nil
        }
    }
}
