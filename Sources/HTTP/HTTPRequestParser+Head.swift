extension HTTPRequestParser {
    /// Collects the request line and field lines, then checks them all at once when the empty line arrives.
    mutating func parseHead() throws(HTTPParseError) -> Event? {
        if lineRanges.isEmpty {
            if scanIndex < readIndex { scanIndex = readIndex }
            while true {
                guard let line = try scanLine(maxLength: limits.maxRequestLineBytes, tooLong: .requestLineTooLong)
                else { return nil }
                // RFC 9112 §2.2: a server SHOULD ignore empty lines received before the request line.
                if line.isEmpty {
                    readIndex = scanIndex
                    continue
                }
                lineRanges.append(line)
                break
            }
        }
        // The field section the last request sent, and its end, already here: its lines are where they were then.
        var sectionRepeated = false
        if lineRanges.count == 1, let repeated = lastSection, scanIndex == lineRanges[0].upperBound + 2 {
            let start = scanIndex
            if let end = buffer.withUnsafeBufferPointer({ repeated.headEnd(in: $0, from: start) }) {
                repeated.appendLines(startingAt: start, to: &lineRanges)
                scanIndex = end
                scannedTo = end
                sectionRepeated = true
            }
        }
        while !sectionRepeated {
            let fieldBytes = scanIndex - (lineRanges[0].upperBound + 2)
            let budget = max(limits.maxHeaderBytes - fieldBytes - 2, 0)
            guard let line = try scanLine(maxLength: budget, tooLong: .headerSectionTooLarge) else { return nil }
            if line.isEmpty { break }
            if lineRanges.count > limits.maxHeaderCount { throw .tooManyHeaders }
            lineRanges.append(line)
        }
        let head = try makeHead(sectionRepeated: sectionRepeated)
        readIndex = scanIndex
        // Emptied from the end, keeping its room: `removeAll(keepingCapacity:)` went through the generic
        // `replaceSubrange`, some 85 instructions a request for a head's few line ranges.
        while !lineRanges.isEmpty { lineRanges.removeLast() }
        switch head.framing {
        case .none: state = .fixedBody(remaining: 0)
        case .length(let length): state = .fixedBody(remaining: length)
        case .chunked:
            bodyBytesSeen = 0
            state = .chunkSize
        }
        return .head(head)
    }

    /// `sectionRepeated`: the field lines are the kept section's, found in place of a scan (`parseHead`).
    ///
    /// A bare CR anywhere in the head is refused as such, before whatever else is wrong with it (RFC 9112 §2.2).
    /// Looked for only once the head has failed: a head that parses has none, since every byte of it was checked
    /// already — a method is token bytes, a target visible ones, a version eight known ones, a field name token
    /// bytes and a value no controls but HTAB (a kept section was such a head). A scan of every head for a CR was
    /// some 150 instructions a request for nothing.
    private mutating func makeHead(sectionRepeated: Bool) throws(HTTPParseError) -> HTTPRequestHead {
        do throws(HTTPParseError) {
            return try makeCheckedHead(sectionRepeated: sectionRepeated)
        } catch {
            let ranges = lineRanges
            let hasBareCR = buffer.withUnsafeBufferPointer { bytes in
                precondition(ranges.last!.upperBound <= bytes.count, "line range past the buffer")
                return ranges.contains { ByteSearch.contains(ASCII.cr, in: bytes, $0) }
            }
            if hasBareCR { throw .bareCarriageReturn }
            throw error
        }
    }

    /// `makeHead`'s work, which may fail on a bare CR in a form of its own (an invalid target, value or method).
    private mutating func makeCheckedHead(sectionRepeated: Bool) throws(HTTPParseError) -> HTTPRequestHead {
        // The ranges as a local: read inside the closure, `self`'s own (a mutating method's) made a copy of the
        // whole parser per request.
        let ranges = lineRanges
        // The buffer as a local too, for the same reason (and read while `recycled` changes, below).
        let buffer = buffer
        let (method, targetRange, version) = try Self.parseRequestLine(buffer, ranges[0])
        let section = ranges.count > 1 ? ranges[1].lowerBound..<ranges[ranges.count - 1].upperBound : nil
        let small = ranges[ranges.count - 1].upperBound - ranges[0].lowerBound <= Self.recycledHeadBytes
        if let section, let repeated = lastSection,
            sectionRepeated
                ? repeated.matches(version: version)
                : buffer.withUnsafeBufferPointer({ repeated.matches(UnsafeBufferPointer(rebasing: $0[section]), version: version) })
        {
            return repeatedHead(
                repeated, method: method, targetRange: targetRange, version: version, keepAlive: repeated.keepAlive && method != "CONNECT",
                keep: small)
        }
        // Let go of the kept section's share of the list first: the box's list is then the only one, and refilled
        // in place.
        lastSection = nil
        var headers: HTTPHeaders
        if let kept = recycled?.takeHeadersIfUnshared() {
            headers = kept
            headers.reserveCapacity(lineRanges.count - 1)
        } else {
            recycled = nil
            headers = HTTPHeaders(minimumCapacity: lineRanges.count - 1)
        }
        var known = FramingFields()
        for range in lineRanges.dropFirst() {
            let field = try parseFieldLine(range)
            known.note(field)
            headers.add(field.name, field.value)
        }
        let framing = try HTTPRequestParser.framing(version: version, fields: known, limits: limits)
        var keepAlive = version == .http11
        // Most requests carry no Connection header; the list parsing only runs when one is there.
        if known.hasConnection {
            let close = headers.listContains("Connection", token: "close")
            keepAlive = version == .http11 ? !close : headers.listContains("Connection", token: "keep-alive") && !close
        }
        var expectsContinue = false
        if !known.expectations.isEmpty {
            // RFC 9110 §10.1.1: 100-continue is the only expectation defined; anything else is 417, on any line.
            for expect in known.expectations {
                guard ASCII.equalsIgnoringCase(Substring(expect).trimmingOptionalWhitespace.utf8, "100-continue".utf8) else {
                    throw .unsupportedExpectation
                }
            }
            expectsContinue = version == .http11 && framing != .none && framing != .length(0)
        }
        if small, let section {
            // At most `recycledHeadBytes`, so every end fits in two bytes.
            let lineEnds = ranges.dropFirst().map { UInt16($0.upperBound - section.lowerBound) }
            lastSection = buffer.withUnsafeBufferPointer { bytes in
                RepeatedFieldSection(
                    bytes: UnsafeBufferPointer(rebasing: bytes[section]), lineEnds: lineEnds, version: version, headers: headers,
                    framing: framing, keepAlive: keepAlive, expectsContinue: expectsContinue)
            }
        }
        if method == "CONNECT" { keepAlive = false }
        if var head = recycled {
            // Taken from (and so held by) this parser alone since `takeHeadersIfUnshared`.
            recycled = nil
            buffer.withUnsafeBufferPointer { bytes in
                head.refill(
                    method: method, target: UnsafeBufferPointer(rebasing: bytes[targetRange]), version: version, headers: headers,
                    keepAlive: keepAlive, expectsContinue: expectsContinue, framing: framing)
            }
            if small { recycled = head }
            return head
        }
        let head = buffer.withUnsafeBufferPointer { bytes in
            HTTPRequestHead(
                method: method, target: UnsafeBufferPointer(rebasing: bytes[targetRange]), version: version, headers: headers,
                keepAlive: keepAlive, expectsContinue: expectsContinue, framing: framing)
        }
        if small { recycled = head }
        return head
    }

    /// The head of a request whose field section is the kept one: the box refilled (or a new one) with the kept
    /// list and what was decided from it, and kept for the next request when `keep` (the head is small).
    private mutating func repeatedHead(
        _ repeated: RepeatedFieldSection, method: String, targetRange: Range<Int>, version: HTTPVersion, keepAlive: Bool, keep: Bool
    ) -> HTTPRequestHead {
        let buffer = buffer
        if recycled?.isUnshared() == true, var head = recycled.take() {
            buffer.withUnsafeBufferPointer { bytes in
                head.refill(
                    method: method, target: UnsafeBufferPointer(rebasing: bytes[targetRange]), version: version,
                    repeatedHeaders: repeated.headers, keepAlive: keepAlive, expectsContinue: repeated.expectsContinue,
                    framing: repeated.framing)
            }
            if keep { recycled = head }
            return head
        }
        let head = buffer.withUnsafeBufferPointer { bytes in
            HTTPRequestHead(
                method: method, target: UnsafeBufferPointer(rebasing: bytes[targetRange]), version: version,
                headers: repeated.headers, keepAlive: keepAlive, expectsContinue: repeated.expectsContinue,
                framing: repeated.framing)
        }
        recycled = keep ? head : nil
        return head
    }

    /// The method, where the target lies in the buffer, and the version.
    private static func parseRequestLine(_ buffer: [UInt8], _ range: Range<Int>) throws(HTTPParseError) -> (String, Range<Int>, HTTPVersion) {
        try buffer.withUnsafeBufferPointer { (bytes) throws(HTTPParseError) -> (String, Range<Int>, HTTPVersion) in
            precondition(range.lowerBound >= 0 && range.upperBound <= bytes.count, "request line past the buffer")
            let (method, target, version) = try Self.requestLine(UnsafeBufferPointer(rebasing: bytes[range]))
            return (method, (range.lowerBound + target.lowerBound)..<(range.lowerBound + target.upperBound), version)
        }
    }

    /// The method, where the target lies in the line, and the version.
    private static func requestLine(_ line: UnsafeBufferPointer<UInt8>) throws(HTTPParseError) -> (String, Range<Int>, HTTPVersion) {
        guard let firstSpace = line.firstIndex(of: ASCII.space), firstSpace > 0 else { throw .malformedRequestLine }
        let methodBytes = UnsafeBufferPointer(rebasing: line[..<firstSpace])
        guard methodBytes.allSatisfy(ASCII.isToken) else { throw .invalidMethod }
        // The target runs to the first byte that is not visible ASCII, found a word at a time (a search for the space
        // and then a check of every byte were two passes byte by byte): a space ends it; anything else before the
        // space is an invalid target, and no space at all a malformed line, as the two passes had it.
        let targetStart = firstSpace + 1
        let stop = ByteSearch.firstIndexOfNonVisible(in: line, from: targetStart, to: line.count)
        guard let stop else { throw .malformedRequestLine }
        guard line[stop] == ASCII.space else {
            guard ByteSearch.firstIndex(of: ASCII.space, in: line, from: stop, to: line.count) != nil else { throw .malformedRequestLine }
            throw .invalidTarget
        }
        guard stop > targetStart else { throw .malformedRequestLine }
        let targetBytes = UnsafeBufferPointer(rebasing: line[targetStart..<stop])
        let version = try parseVersion(UnsafeBufferPointer(rebasing: line[(stop + 1)...]))
        let method = Self.method(methodBytes)
        // Origin-form, nearly every request: known from its first byte, without a string comparison. Targets are
        // visible ASCII (`isTargetByte`), so the first byte is the first character.
        if targetBytes[0] != UInt8(ascii: "/") { try checkTargetForm(String(decoding: targetBytes, as: UTF8.self), method: method) }
        return (method, targetStart..<stop, version)
    }

    /// The methods nearly every request uses, as literals: no string is built and validated for them (some 85
    /// instructions a GET). Methods are case-sensitive (RFC 9110 §9.1), so only the exact spelling is one of them.
    private static func method(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        let known: String? =
            switch bytes.count {
            case 3: CommonFieldNames.spells(bytes, "GET") ? "GET" : CommonFieldNames.spells(bytes, "PUT") ? "PUT" : nil
            case 4: CommonFieldNames.spells(bytes, "POST") ? "POST" : CommonFieldNames.spells(bytes, "HEAD") ? "HEAD" : nil
            case 5: CommonFieldNames.spells(bytes, "PATCH") ? "PATCH" : nil
            case 6: CommonFieldNames.spells(bytes, "DELETE") ? "DELETE" : nil
            case 7: CommonFieldNames.spells(bytes, "OPTIONS") ? "OPTIONS" : nil
            default: nil
            }
        return known ?? String(decoding: bytes, as: UTF8.self)
    }

    private static func parseVersion(_ bytes: UnsafeBufferPointer<UInt8>) throws(HTTPParseError) -> HTTPVersion {
        // Byte by byte: `starts(with: "HTTP/".utf8)` ran the generic sequence comparison, some 230 instructions a
        // request.
        guard bytes.count == 8, bytes[0] == UInt8(ascii: "H"), bytes[1] == UInt8(ascii: "T"), bytes[2] == UInt8(ascii: "T"),
            bytes[3] == UInt8(ascii: "P"), bytes[4] == UInt8(ascii: "/")
        else {
            if bytes.contains(ASCII.space) { throw .malformedRequestLine }
            throw .invalidVersion
        }
        let major = bytes[5], dot = bytes[6], minor = bytes[7]
        let digits = UInt8(ascii: "0")...UInt8(ascii: "9")
        guard digits.contains(major), dot == UInt8(ascii: "."), digits.contains(minor) else { throw .invalidVersion }
        guard major == UInt8(ascii: "1") else { throw .unsupportedVersion }
        // RFC 9110 §2.5: a higher minor version is answered as the highest one we implement.
        return minor == UInt8(ascii: "0") ? .http10 : .http11
    }

    /// The forms other than origin-form (RFC 9112 §3.2): `*` for OPTIONS, or an absolute URI.
    private static func checkTargetForm(_ target: String, method: String) throws(HTTPParseError) {
        if target == "*" {
            guard method == "OPTIONS" else { throw .invalidTarget }
            return
        }
        let lowered = target.lowercased()
        guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://") else { throw .invalidTarget }
    }

    /// One `name: value` field line (RFC 9112 §5): no leading whitespace (obs-fold), no whitespace before the
    /// colon, a token name, and a value free of control characters once optional whitespace is trimmed.
    func parseFieldLine(_ range: Range<Int>) throws(HTTPParseError) -> HTTPHeaders.Field {
        try buffer.withUnsafeBufferPointer { (bytes) throws(HTTPParseError) -> HTTPHeaders.Field in
            // The one bound check a release build keeps; the scan below reads the line through its pointer, where
            // the array slice checked bounds on every byte.
            precondition(range.lowerBound >= 0 && range.upperBound <= bytes.count, "field line past the buffer")
            return try Self.fieldLine(UnsafeBufferPointer(rebasing: bytes[range]))
        }
    }

    static func fieldLine(_ line: UnsafeBufferPointer<UInt8>) throws(HTTPParseError) -> HTTPHeaders.Field {
        guard let first = line.first else { throw .invalidHeaderName }
        if first == ASCII.space || first == ASCII.tab { throw .obsoleteLineFolding }
        var index = 0
        while index < line.count, line[index] != ASCII.colon {
            let byte = line[index]
            if byte == ASCII.space || byte == ASCII.tab {
                throw UnsafeBufferPointer(rebasing: line[index...]).contains(ASCII.colon) ? .whitespaceBeforeColon : .invalidHeaderName
            }
            guard ASCII.isToken(byte) else { throw .invalidHeaderName }
            index += 1
        }
        guard index < line.count, index > 0 else { throw .invalidHeaderName }
        let name = CommonFieldNames.name(UnsafeBufferPointer(rebasing: line[..<index]))
        var valueStart = index + 1
        var valueEnd = line.count
        while valueStart < valueEnd, line[valueStart] == ASCII.space || line[valueStart] == ASCII.tab { valueStart += 1 }
        while valueEnd > valueStart, line[valueEnd - 1] == ASCII.space || line[valueEnd - 1] == ASCII.tab { valueEnd -= 1 }
        let valueBytes = UnsafeBufferPointer(rebasing: line[valueStart..<valueEnd])
        guard valueBytes.allSatisfy(ASCII.isFieldValueByte) else { throw .invalidHeaderValue(name: name) }
        return HTTPHeaders.Field(name: name, value: String(decoding: valueBytes, as: UTF8.self))
    }
}
