/// An incremental HTTP/1.1 request parser (RFC 9112). It owns no socket: feed it bytes as they arrive, in slices of
/// any size, and pull events with `next()`, which answers `nil` while more bytes are needed.
///
/// A request yields `.head`, then zero or more `.body` parts, then `.end`; pipelined requests follow in order. The
/// parser stops for good at the first framing error: the caller answers once and closes the connection, never
/// reading what follows, because a desynchronised parser is how request smuggling works.
public struct HTTPRequestParser: Sendable {
    public enum Event: Sendable, Equatable {
        case head(HTTPRequestHead)
        case body([UInt8])
        case end(trailers: HTTPHeaders)
    }

    enum State: Sendable {
        case head
        case fixedBody(remaining: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailers
        case failed(HTTPParseError)
    }

    public let limits: HTTPLimits
    var buffer: [UInt8] = []
    var readIndex = 0
    var state: State = .head
    /// Where the line scan for the current head or trailer section resumes, and the lines found so far.
    var scanIndex = 0
    /// How far the current partial line has been scanned for its LF.
    var scannedTo = 0
    var lineRanges: [Range<Int>] = []
    var bodyBytesSeen = 0
    /// The last head made, kept so the next one can reuse its box and header list once the request is done with
    /// it (`makeHead`). Only a small head is kept: an idle connection holds at most `recycledHeadBytes` of it.
    var recycled: HTTPRequestHead?
    static let recycledHeadBytes = 2048
    /// The last small head's field section and what was made of it: the next head with the same section takes
    /// it as it is (`RepeatedFieldSection`).
    var lastSection: RepeatedFieldSection?

    public init(limits: HTTPLimits = .default) {
        self.limits = limits
    }

    /// Bytes received and not yet consumed by an event.
    public var bufferedByteCount: Int { buffer.count - readIndex }

    /// True between requests: nothing of a next request has been consumed or buffered.
    public var isIdle: Bool {
        if case .head = state { return bufferedByteCount == 0 }
        return false
    }

    public mutating func feed<Bytes: Collection>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        compactIfWorthIt()
        buffer.append(contentsOf: bytes)
    }

    /// What a socket read, copied in by code specialized here: the generic entry, called from another module, ran
    /// unspecialized and looked up its collection's type metadata on every read (some 650 instructions a request).
    public mutating func feed(_ bytes: UnsafeBufferPointer<UInt8>) {
        compactIfWorthIt()
        buffer.append(contentsOf: bytes)
    }

    /// The next complete event, `nil` when more bytes are needed.
    public mutating func next() throws(HTTPParseError) -> Event? {
        do throws(HTTPParseError) {
            switch state {
            case .failed(let error):
                throw error
            case .head:
                return try parseHead()
            case .fixedBody(let remaining):
                if remaining == 0 {
                    state = .head
                    return .end(trailers: HTTPHeaders())
                }
                return takeBody(remaining: remaining) { .fixedBody(remaining: $0) }
            case .chunkSize:
                guard try parseChunkSizeLine() else { return nil }
                return try next()
            case .chunkData(let remaining):
                return takeBody(remaining: remaining) { rest in rest == 0 ? .chunkDataEnd : .chunkData(remaining: rest) }
            case .chunkDataEnd:
                guard bufferedByteCount >= 2 else { return nil }
                guard buffer[readIndex] == ASCII.cr, buffer[readIndex + 1] == ASCII.lf else {
                    throw HTTPParseError.invalidChunkTerminator
                }
                readIndex += 2
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

    // MARK: - Bodies

    private mutating func takeBody(remaining: Int, nextState: (Int) -> State) -> Event? {
        let available = min(bufferedByteCount, remaining)
        guard available > 0 else { return nil }
        let part = Array(buffer[readIndex..<readIndex + available])
        readIndex += available
        state = nextState(remaining - available)
        return .body(part)
    }

    // MARK: - Lines

    /// Scans for the next CRLF-terminated line starting at `scanIndex`. Returns the line's range without CRLF.
    /// A bare LF is refused here; a bare CR is refused when the line is checked.
    mutating func scanLine(maxLength: Int, tooLong: HTTPParseError) throws(HTTPParseError) -> Range<Int>? {
        let start = scanIndex
        // Bytes before `scannedTo` hold no LF (an earlier call saw them): a line dripped in byte by byte is scanned
        // once in all, not once per read.
        let end = buffer.count
        // Over the bytes in place, a word at a time: a scan of the array itself, bounds-checked byte by byte, was a
        // visible cost.
        let found = buffer.withUnsafeBufferPointer { bytes in
            ByteSearch.firstIndex(of: ASCII.lf, in: bytes, from: min(max(start, scannedTo), end), to: end)
        }
        if let index = found {
            // Length first, as the partial-line check below does: the error must not depend on where the
            // bytes were cut (a long line ending in a bare LF is too long however it arrives).
            if index - start > maxLength + 1 { throw tooLong }
            guard index > start, buffer[index - 1] == ASCII.cr else { throw .bareLineFeed }
            scanIndex = index + 1
            scannedTo = scanIndex
            return start..<(index - 1)
        }
        scannedTo = end
        if end - start > maxLength + 1 { throw tooLong }
        return nil
    }

    private mutating func compactIfWorthIt() {
        guard readIndex > 0 else { return }
        if readIndex == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            scanIndex -= readIndex
            scannedTo = 0
            shiftLineRanges(by: readIndex)
            readIndex = 0
        } else if readIndex >= 4096, readIndex * 2 >= buffer.count {
            let shift = readIndex
            buffer.removeFirst(shift)
            scanIndex -= shift
            scannedTo = max(0, scannedTo - shift)
            shiftLineRanges(by: shift)
            readIndex = 0
        }
    }

    /// In place: a new array (`map`) would drop the capacity kept between requests, and every head would then
    /// grow its line list from nothing again.
    private mutating func shiftLineRanges(by shift: Int) {
        for index in lineRanges.indices { lineRanges[index] = (lineRanges[index].lowerBound - shift)..<(lineRanges[index].upperBound - shift) }
    }
}
