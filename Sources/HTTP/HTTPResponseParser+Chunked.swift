extension HTTPResponseParser {
    /// `chunk-size [ chunk-ext ] CRLF` (RFC 9112 §7.1); extensions are bounded and ignored.
    mutating func parseChunkSizeLine() throws(HTTPResponseError) -> Bool {
        lineStart = max(lineStart, readIndex)
        guard let line = try scanLine(sectionStart: readIndex, limit: limits.maxChunkLineBytes + 2, tooLong: .chunkLineTooLong) else {
            if inputEnded { throw .endOfInput(during: .body) }
            return false
        }
        readIndex = lineStart
        let bytes = buffer[line]
        guard let size = ChunkSizeLine.size(bytes) else { throw .invalidChunkSize }
        if size == 0 {
            lines.removeAll(keepingCapacity: true)
            state = .trailers
            return true
        }
        bodyBytesSeen += size
        if bodyBytesSeen > limits.maxBodyBytes { throw .bodyTooLarge }
        state = .chunkData(remaining: size)
        return true
    }

    /// The CRLF after chunk data (a bare LF accepted, as for lines).
    mutating func consumeChunkTerminator() throws(HTTPResponseError) -> Bool {
        guard bufferedByteCount >= 1 else {
            if inputEnded { throw .endOfInput(during: .body) }
            return false
        }
        if buffer[readIndex] == ASCII.lf {
            readIndex += 1
            return true
        }
        guard buffer[readIndex] == ASCII.cr else { throw .invalidChunkTerminator }
        guard bufferedByteCount >= 2 else {
            if inputEnded { throw .endOfInput(during: .body) }
            return false
        }
        guard buffer[readIndex + 1] == ASCII.lf else { throw .invalidChunkTerminator }
        readIndex += 2
        return true
    }

    /// Trailer fields after the last chunk, bounded like the head.
    mutating func parseTrailers() throws(HTTPResponseError) -> Event? {
        if lines.isEmpty { lineStart = max(lineStart, readIndex) }
        while true {
            guard let line = try scanLine(sectionStart: readIndex, limit: limits.maxHeadBytes, tooLong: .headTooLarge) else {
                if inputEnded { throw .endOfInput(during: .body) }
                return nil
            }
            if line.isEmpty { break }
            if lines.count >= limits.maxHeaderCount { throw .tooManyHeaders }
            lines.append(line)
        }
        var trailers = HTTPHeaders()
        for range in lines {
            let field = try parseField(range)
            trailers.add(field.name, field.value)
        }
        readIndex = lineStart
        lines.removeAll(keepingCapacity: true)
        state = .head
        return .end(trailers: trailers)
    }
}
