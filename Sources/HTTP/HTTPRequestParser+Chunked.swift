extension HTTPRequestParser {
    /// `chunk-size [ chunk-ext ] CRLF` (RFC 9112 §7.1). Extensions are bounded and ignored.
    mutating func parseChunkSizeLine() throws(HTTPParseError) -> Bool {
        if scanIndex < readIndex { scanIndex = readIndex }
        guard let line = try scanLine(maxLength: limits.maxChunkLineBytes, tooLong: .chunkLineTooLong) else {
            return false
        }
        readIndex = scanIndex
        let bytes = buffer[line]
        guard let size = ChunkSizeLine.size(bytes) else { throw .invalidChunkSize }
        if size == 0 {
            lineRanges.removeAll(keepingCapacity: true)
            state = .trailers
            return true
        }
        bodyBytesSeen += size
        if bodyBytesSeen > limits.maxBodyBytes { throw .bodyTooLarge }
        state = .chunkData(remaining: size)
        return true
    }

    /// Trailer fields after the last chunk, checked like header fields and bounded by the same limits.
    mutating func parseTrailers() throws(HTTPParseError) -> Event? {
        if lineRanges.isEmpty, scanIndex < readIndex { scanIndex = readIndex }
        let sectionStart = lineRanges.first?.lowerBound ?? readIndex
        while true {
            let budget = max(limits.maxHeaderBytes - (scanIndex - sectionStart) - 2, 0)
            guard let line = try scanLine(maxLength: budget, tooLong: .headerSectionTooLarge) else { return nil }
            if line.isEmpty { break }
            if lineRanges.count >= limits.maxHeaderCount { throw .tooManyHeaders }
            lineRanges.append(line)
        }
        var trailers = HTTPHeaders()
        for range in lineRanges {
            if buffer[range].contains(ASCII.cr) { throw .bareCarriageReturn }
            let field = try parseFieldLine(range)
            trailers.add(field.name, field.value)
        }
        readIndex = scanIndex
        lineRanges.removeAll(keepingCapacity: true)
        state = .head
        return .end(trailers: trailers)
    }
}
