extension HTTPRequestParser {
    /// Decides how the body is delimited, refusing every ambiguous combination (RFC 9112 §6.1, §6.3) rather than
    /// guessing, since a guess that differs from a proxy's is a smuggling vector.
    static func framing(
        version: HTTPVersion, fields: FramingFields, limits: HTTPLimits
    ) throws(HTTPParseError)
        -> BodyFraming
    {
        // RFC 9112 §3.2: exactly one Host on HTTP/1.1; more than one is always refused.
        if fields.hostCount > 1 { throw .duplicateHost }
        if version == .http11, fields.hostCount == 0 { throw .missingHost }
        if let host = fields.host, !HostValidation.isValid(host) { throw .invalidHost }

        if !fields.transferEncodings.isEmpty {
            if version == .http10 { throw .transferEncodingInHTTP10 }
            if !fields.contentLengths.isEmpty { throw .contentLengthWithTransferEncoding }
            return try chunkedFraming(fields.transferEncodings)
        }
        guard let first = fields.contentLengths.first else { return .none }
        // Duplicates are refused even when equal: a list like "5, 5" is read differently by different servers.
        if fields.contentLengths.count > 1 { throw .duplicateContentLength }
        let length = try parseContentLength(first)
        if length > limits.maxBodyBytes { throw .bodyTooLarge }
        return .length(length)
    }

    private static func chunkedFraming(_ values: [String]) throws(HTTPParseError) -> BodyFraming {
        var codings: [Substring] = []
        for value in values {
            for element in value.split(separator: ",", omittingEmptySubsequences: false) {
                let coding = element.trimmingOptionalWhitespace
                guard !coding.isEmpty, coding.utf8.allSatisfy(ASCII.isToken) else { throw .chunkedNotFinal }
                codings.append(coding)
            }
        }
        let isChunked = { (coding: Substring) in ASCII.equalsIgnoringCase(coding.utf8, "chunked".utf8) }
        // §6.3: chunked must be the final coding, and applied once; otherwise the length cannot be known.
        guard let last = codings.last, isChunked(last), codings.dropLast().allSatisfy({ !isChunked($0) }) else {
            throw .chunkedNotFinal
        }
        // §6.1: other codings before chunked are well formed but not implemented here.
        guard codings.count == 1 else { throw .unsupportedTransferCoding }
        return .chunked
    }

    private static func parseContentLength(_ value: String) throws(HTTPParseError) -> Int {
        let bytes = value.utf8
        guard !bytes.isEmpty, bytes.count <= 18 else { throw .invalidContentLength }
        var length = 0
        for byte in bytes {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { throw .invalidContentLength }
            length = length * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return length
    }
}
