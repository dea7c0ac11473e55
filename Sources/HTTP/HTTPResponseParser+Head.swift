extension HTTPResponseParser {
    /// Collects the status line and field lines; interim (1xx) responses are dropped whole and the scan goes on.
    mutating func parseHead() throws(HTTPResponseError) -> Event? {
        while true {
            if lines.isEmpty {
                lineStart = max(lineStart, readIndex)
                if bufferedByteCount == 0, inputEnded { throw .endOfInput(during: .beforeResponse) }
            }
            guard let line = try scanLine(sectionStart: readIndex, limit: limits.maxHeadBytes, tooLong: .headTooLarge) else {
                if inputEnded { throw .endOfInput(during: .head) }
                return nil
            }
            if line.isEmpty {
                // Empty lines before a status line are tolerated, as old servers send a stray CRLF after a body.
                if lines.isEmpty {
                    readIndex = lineStart
                    continue
                }
            } else {
                if lines.count > limits.maxHeaderCount { throw .tooManyHeaders }
                // The status line is checked as soon as it is whole: a peer that is not speaking HTTP is found out
                // at once, not after the head limit's worth of bytes.
                if lines.isEmpty { _ = try parseStatusLine(line) }
                lines.append(line)
                continue
            }
            let head = try makeHead()
            readIndex = lineStart
            lines.removeAll(keepingCapacity: true)
            if (100..<200).contains(head.status) {
                // RFC 9110 §15.2: a client must accept interim responses and wait for the final one.
                if head.status == 101 { throw .unexpectedUpgrade }
                continue
            }
            bodyBytesSeen = 0
            switch head.framing {
            case .none: state = .fixedBody(remaining: 0)
            case .length(let length): state = .fixedBody(remaining: length)
            case .chunked: state = .chunkSize
            case .untilClose: state = .untilClose
            }
            answersHEAD = false
            return .head(head)
        }
    }

    private func makeHead() throws(HTTPResponseError) -> HTTPResponseHead {
        let (version, status, reason) = try parseStatusLine(lines[0])
        var headers = HTTPHeaders(minimumCapacity: lines.count - 1)
        for range in lines.dropFirst() {
            let field = try parseField(range)
            headers.add(field.name, field.value)
        }
        let framing = try framing(status: status, headers: headers)
        var keepAlive: Bool
        if version == .http11 {
            keepAlive = !headers.listContains("Connection", token: "close")
        } else {
            keepAlive = headers.listContains("Connection", token: "keep-alive") && !headers.listContains("Connection", token: "close")
        }
        if framing == .untilClose { keepAlive = false }
        return HTTPResponseHead(version: version, status: status, reason: reason, headers: headers, framing: framing, keepAlive: keepAlive)
    }

    /// `HTTP-version SP status-code SP [ reason-phrase ]` (RFC 9112 §4); a missing SP before an empty reason is
    /// accepted, since servers do send it.
    private func parseStatusLine(_ range: Range<Int>) throws(HTTPResponseError) -> (HTTPVersion, Int, String) {
        let line = buffer[range]
        guard line.count >= 12, line.starts(with: "HTTP/".utf8) else { throw .malformedStatusLine }
        let start = line.startIndex
        let major = line[start + 5]
        let minor = line[start + 7]
        guard line[start + 6] == UInt8(ascii: "."), ASCII.isDigit(major), ASCII.isDigit(minor), line[start + 8] == ASCII.space else {
            throw .malformedStatusLine
        }
        guard major == UInt8(ascii: "1"), minor <= UInt8(ascii: "1") else { throw .unsupportedVersion }
        var status = 0
        for byte in line[(start + 9)..<(start + 12)] {
            guard ASCII.isDigit(byte) else { throw .malformedStatusLine }
            status = status * 10 + Int(byte - UInt8(ascii: "0"))
        }
        guard status >= 100 else { throw .malformedStatusLine }
        var reason = ""
        if line.count > 12 {
            guard line[start + 12] == ASCII.space else { throw .malformedStatusLine }
            let text = line[(start + 13)...]
            guard text.allSatisfy(ASCII.isFieldValueByte) else { throw .malformedStatusLine }
            reason = String(decoding: text, as: UTF8.self)
        }
        return (minor == UInt8(ascii: "0") ? .http10 : .http11, status, reason)
    }

    func parseField(_ range: Range<Int>) throws(HTTPResponseError) -> HTTPHeaders.Field {
        let line = buffer[range]
        guard let colon = line.firstIndex(of: ASCII.colon), colon > line.startIndex,
            line[line.startIndex..<colon].allSatisfy(ASCII.isToken)
        else { throw .invalidHeaderName }
        let name = String(decoding: line[line.startIndex..<colon], as: UTF8.self)
        var valueStart = colon + 1
        var valueEnd = line.endIndex
        while valueStart < valueEnd, line[valueStart] == ASCII.space || line[valueStart] == ASCII.tab { valueStart += 1 }
        while valueEnd > valueStart, line[valueEnd - 1] == ASCII.space || line[valueEnd - 1] == ASCII.tab { valueEnd -= 1 }
        let value = line[valueStart..<valueEnd]
        guard value.allSatisfy(ASCII.isFieldValueByte) else { throw .invalidHeaderValue(name: name) }
        return HTTPHeaders.Field(name: name, value: String(decoding: value, as: UTF8.self))
    }

    /// RFC 9112 §6.3, in its order: no body for HEAD, 1xx, 204, 304; chunked when it is the final coding; a
    /// Content-Length; otherwise until close. Ambiguous framing is refused rather than guessed.
    private func framing(status: Int, headers: HTTPHeaders) throws(HTTPResponseError) -> HTTPResponseHead.Framing {
        if answersHEAD || status < 200 || status == 204 || status == 304 { return .none }
        let codings = headers.listElements("Transfer-Encoding")
        let lengths = headers.listElements("Content-Length")
        if !codings.isEmpty {
            if !lengths.isEmpty { throw .contentLengthWithTransferEncoding }
            guard let last = codings.last, ASCII.equalsIgnoringCase(last.utf8, "chunked".utf8) else { return .untilClose }
            // Codings before chunked (gzip and the like) are never asked for, so never decoded.
            guard codings.count == 1 else { throw .unsupportedTransferCoding }
            return .chunked
        }
        guard let first = lengths.first else { return .untilClose }
        // RFC 9110 §8.6: a list of identical values may be taken as one; differing values are an error.
        guard lengths.allSatisfy({ $0 == first }) else { throw .conflictingContentLength }
        guard first.utf8.count <= 18, first.utf8.allSatisfy(ASCII.isDigit) else { throw .invalidContentLength }
        var length = 0
        for byte in first.utf8 { length = length * 10 + Int(byte - UInt8(ascii: "0")) }
        if length > limits.maxBodyBytes { throw .bodyTooLarge }
        return length == 0 ? .none : .length(length)
    }
}

extension ASCII {
    @inline(__always) static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
}
