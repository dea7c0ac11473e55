/// An incremental HTTP/1.1 response parser (RFC 9112) for a client. It owns no socket: say which request the next
/// response answers (`expectResponse(toMethod:)`), feed bytes as they arrive in slices of any size, report the end of
/// input when the peer closes, and pull events with `next()`, which answers `nil` while more bytes are needed.
///
/// A response yields `.head`, zero or more `.body` parts, then `.end`; interim 1xx responses are skipped. The parser
/// stops for good at the first error: the caller closes the connection, since what follows cannot be framed.
public struct HTTPResponseParser: Sendable {
    public enum Event: Sendable, Equatable {
        case head(HTTPResponseHead)
        case body([UInt8])
        case end(trailers: HTTPHeaders)
    }

    enum State: Sendable {
        case head
        case fixedBody(remaining: Int)
        case untilClose
        case chunkSize
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailers
        /// After a body read until close: nothing more can follow.
        case closed
        case failed(HTTPResponseError)
    }

    public let limits: HTTPResponseLimits
    var buffer: [UInt8] = []
    var readIndex = 0
    var state: State = .head
    /// Where the line being scanned starts, and how far it has been searched for its LF already.
    var lineStart = 0
    var scannedTo = 0
    /// The lines of the head or trailer section found so far, line ends excluded.
    var lines: [Range<Int>] = []
    var bodyBytesSeen = 0
    var inputEnded = false
    var answersHEAD = false

    public init(limits: HTTPResponseLimits = .default) {
        self.limits = limits
    }

    /// Names the method of the request the next response answers: a response to HEAD has no body whatever its
    /// headers say (RFC 9110 §9.3.2).
    public mutating func expectResponse(toMethod method: String) {
        answersHEAD = method == "HEAD"
    }

    public mutating func feed<Bytes: Collection>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        compactIfWorthIt()
        buffer.append(contentsOf: bytes)
    }

    /// The peer closed its side: a body read until close ends here; anything else unfinished is an error.
    public mutating func endInput() {
        inputEnded = true
    }

    /// Bytes received and not yet consumed by an event.
    public var bufferedByteCount: Int { buffer.count - readIndex }

    /// True between responses with nothing of a next one received.
    public var isIdle: Bool {
        if case .head = state { return bufferedByteCount == 0 && lines.isEmpty }
        return false
    }

    /// The next complete event, `nil` when more bytes are needed (or, after the end of input, when none can come).
    public mutating func next() throws(HTTPResponseError) -> Event? {
        do throws(HTTPResponseError) {
            switch state {
            case .failed(let error):
                throw error
            case .closed:
                return nil
            case .head:
                return try parseHead()
            case .fixedBody(let remaining):
                if remaining == 0 {
                    state = .head
                    return .end(trailers: HTTPHeaders())
                }
                return try takeBody(remaining: remaining) { .fixedBody(remaining: $0) }
            case .untilClose:
                if bufferedByteCount == 0, inputEnded {
                    state = .closed
                    return .end(trailers: HTTPHeaders())
                }
                return try takeBody(remaining: Int.max) { _ in .untilClose }
            case .chunkSize:
                guard try parseChunkSizeLine() else { return nil }
                return try next()
            case .chunkData(let remaining):
                return try takeBody(remaining: remaining) { rest in rest == 0 ? .chunkDataEnd : .chunkData(remaining: rest) }
            case .chunkDataEnd:
                guard try consumeChunkTerminator() else { return nil }
                state = .chunkSize
                return try next()
            case .trailers:
                return try parseTrailers()
            }
        } catch {
            state = .failed(error)
            throw error
        }
    }

    private mutating func takeBody(remaining: Int, nextState: (Int) -> State) throws(HTTPResponseError) -> Event? {
        let available = min(bufferedByteCount, remaining)
        guard available > 0 else {
            if inputEnded { throw .endOfInput(during: .body) }
            return nil
        }
        if case .untilClose = state {
            bodyBytesSeen += available
            if bodyBytesSeen > limits.maxBodyBytes { throw .bodyTooLarge }
        }
        let part = Array(buffer[readIndex..<readIndex + available])
        readIndex += available
        state = nextState(remaining - available)
        return .body(part)
    }

    /// The next line from `lineStart`, without its line end. A bare LF ends a line too (RFC 9112 §2.2 lets a
    /// recipient accept it); a CR elsewhere is left in the line for the field checks to refuse.
    mutating func scanLine(sectionStart: Int, limit: Int, tooLong: HTTPResponseError) throws(HTTPResponseError) -> Range<Int>? {
        let from = max(lineStart, scannedTo)
        let found = buffer.withUnsafeBufferPointer { bytes in bytes[from..<bytes.count].firstIndex(of: ASCII.lf) }
        guard let index = found else {
            scannedTo = buffer.count
            if buffer.count - sectionStart > limit { throw tooLong }
            return nil
        }
        if index + 1 - sectionStart > limit { throw tooLong }
        let end = index > lineStart && buffer[index - 1] == ASCII.cr ? index - 1 : index
        let line = lineStart..<end
        lineStart = index + 1
        scannedTo = lineStart
        return line
    }

    private mutating func compactIfWorthIt() {
        guard readIndex > 0, readIndex == buffer.count || (readIndex >= 4096 && readIndex * 2 >= buffer.count) else { return }
        let shift = readIndex
        buffer.removeFirst(shift)
        readIndex = 0
        lineStart = max(0, lineStart - shift)
        scannedTo = max(0, scannedTo - shift)
        for index in lines.indices { lines[index] = (lines[index].lowerBound - shift)..<(lines[index].upperBound - shift) }
    }
}
