import HTTP

/// A request the server must refuse, with the error and status it must answer.
public struct MalformedRequestFixture: Sendable {
    public let name: String
    public let bytes: [UInt8]
    public let error: HTTPParseError

    init(_ name: String, _ text: String, _ error: HTTPParseError) {
        self.name = name
        self.bytes = Array(text.utf8)
        self.error = error
    }

    init(_ name: String, bytes: [UInt8], _ error: HTTPParseError) {
        self.name = name
        self.bytes = bytes
        self.error = error
    }

    public var status: Int { error.status.code }
}

public enum MalformedRequests {
    static let h = "Host: a\r\n"
    static let longLine = "GET /" + String(repeating: "a", count: 9000) + " HTTP/1.1\r\n" + h + "\r\n"
    static let bigHeaders = "GET / HTTP/1.1\r\n" + h + String(repeating: "X-Pad: " + String(repeating: "p", count: 1000) + "\r\n", count: 40) + "\r\n"
    static let manyHeaders = "GET / HTTP/1.1\r\n" + h + (0..<120).map { "X-\($0): v\r\n" }.joined() + "\r\n"
    static let longExtension =
        "POST /x HTTP/1.1\r\n" + h + "Transfer-Encoding: chunked\r\n\r\n1;" + String(repeating: "e", count: 2000) + "\r\na\r\n0\r\n\r\n"
    static let bigTrailers =
        "POST /x HTTP/1.1\r\n" + h + "Transfer-Encoding: chunked\r\n\r\n0\r\n"
        + String(repeating: "T: " + String(repeating: "t", count: 1000) + "\r\n", count: 40) + "\r\n"

    public static let all: [MalformedRequestFixture] = [
        // Content-Length and Transfer-Encoding together, in every spelling (RFC 9112 §6.3).
        .init(
            "CL then TE", "POST / HTTP/1.1\r\n\(h)Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
            .contentLengthWithTransferEncoding),
        .init(
            "TE then CL", "POST / HTTP/1.1\r\n\(h)Transfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n",
            .contentLengthWithTransferEncoding),
        .init(
            "CL with mixed-case TE name", "POST / HTTP/1.1\r\n\(h)Content-Length: 5\r\ntRaNsFeR-eNcOdInG: chunked\r\n\r\n",
            .contentLengthWithTransferEncoding),
        .init(
            "CL with zero and TE", "POST / HTTP/1.1\r\n\(h)Content-Length: 0\r\nTransfer-Encoding: chunked\r\n\r\n",
            .contentLengthWithTransferEncoding),
        // Content-Length values.
        .init("duplicate equal CL", "POST / HTTP/1.1\r\n\(h)Content-Length: 3\r\nContent-Length: 3\r\n\r\nabc", .duplicateContentLength),
        .init("duplicate different CL", "POST / HTTP/1.1\r\n\(h)Content-Length: 3\r\nContent-Length: 4\r\n\r\nabcd", .duplicateContentLength),
        .init("CL list", "POST / HTTP/1.1\r\n\(h)Content-Length: 3, 3\r\n\r\nabc", .invalidContentLength),
        .init("signed plus CL", "POST / HTTP/1.1\r\n\(h)Content-Length: +3\r\n\r\nabc", .invalidContentLength),
        .init("negative CL", "POST / HTTP/1.1\r\n\(h)Content-Length: -1\r\n\r\n", .invalidContentLength),
        .init("hex CL", "POST / HTTP/1.1\r\n\(h)Content-Length: 0x10\r\n\r\n", .invalidContentLength),
        .init("overflowing CL", "POST / HTTP/1.1\r\n\(h)Content-Length: 99999999999999999999999\r\n\r\n", .invalidContentLength),
        .init("empty CL", "POST / HTTP/1.1\r\n\(h)Content-Length:\r\n\r\n", .invalidContentLength),
        .init("CL with inner space", "POST / HTTP/1.1\r\n\(h)Content-Length: 1 2\r\n\r\n", .invalidContentLength),
        .init("CL decimal point", "POST / HTTP/1.1\r\n\(h)Content-Length: 1.0\r\n\r\n", .invalidContentLength),
        .init("CL over the body limit", "POST / HTTP/1.1\r\n\(h)Content-Length: 2000000\r\n\r\n", .bodyTooLarge),
        // Transfer-Encoding values other than exactly chunked.
        .init("TE chunked, identity", "POST / HTTP/1.1\r\n\(h)Transfer-Encoding: chunked, identity\r\n\r\n", .chunkedNotFinal),
        .init("TE identity", "POST / HTTP/1.1\r\n\(h)Transfer-Encoding: identity\r\n\r\n", .chunkedNotFinal),
        .init("TE chunkedx", "POST / HTTP/1.1\r\n\(h)Transfer-Encoding: chunkedx\r\n\r\n", .chunkedNotFinal),
        .init("TE xchunked", "POST / HTTP/1.1\r\n\(h)Transfer-Encoding: xchunked\r\n\r\n", .chunkedNotFinal),
        .init("TE chunked twice in one field", "POST / HTTP/1.1\r\n\(h)Transfer-Encoding: chunked, chunked\r\n\r\n", .chunkedNotFinal),
        .init(
            "TE chunked in two fields", "POST / HTTP/1.1\r\n\(h)Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n", .chunkedNotFinal),
        .init("TE with trailing comma", "POST / HTTP/1.1\r\n\(h)Transfer-Encoding: chunked,\r\n\r\n", .chunkedNotFinal),
        .init("TE with parameter", "POST / HTTP/1.1\r\n\(h)Transfer-Encoding: chunked;q=1\r\n\r\n", .chunkedNotFinal),
        .init("TE quoted", "POST / HTTP/1.1\r\n\(h)Transfer-Encoding: \"chunked\"\r\n\r\n", .chunkedNotFinal),
        .init(
            "TE vertical tab before chunked", "POST / HTTP/1.1\r\n\(h)Transfer-Encoding: \u{0B}chunked\r\n\r\n",
            .invalidHeaderValue(name: "Transfer-Encoding")),
        .init("TE empty", "POST / HTTP/1.1\r\n\(h)Transfer-Encoding:\r\n\r\n", .chunkedNotFinal),
        .init("TE gzip then chunked", "POST / HTTP/1.1\r\n\(h)Transfer-Encoding: gzip, chunked\r\n\r\n", .unsupportedTransferCoding),
        .init("TE folded onto next line", "POST / HTTP/1.1\r\n\(h)Transfer-Encoding:\r\n chunked\r\n\r\n", .obsoleteLineFolding),
        .init("TE header with leading space", "POST / HTTP/1.1\r\n\(h) Transfer-Encoding: chunked\r\n\r\n", .obsoleteLineFolding),
        .init("TE space before colon", "POST / HTTP/1.1\r\n\(h)Transfer-Encoding : chunked\r\n\r\n", .whitespaceBeforeColon),
        .init("TE tab before colon", "POST / HTTP/1.1\r\n\(h)Transfer-Encoding\t: chunked\r\n\r\n", .whitespaceBeforeColon),
        .init("TE in HTTP/1.0", "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", .transferEncodingInHTTP10),
        // Line endings and control bytes.
        .init("obs-fold in an ordinary header", "GET / HTTP/1.1\r\n\(h)X-A: one\r\n\ttwo\r\n\r\n", .obsoleteLineFolding),
        .init("bare LF ending the request line", "GET / HTTP/1.1\n\(h)\r\n", .bareLineFeed),
        .init("bare LF ending a header", "GET / HTTP/1.1\r\nHost: a\n\r\n", .bareLineFeed),
        .init("bare LF ending the head", "GET / HTTP/1.1\r\nHost: a\r\n\n", .bareLineFeed),
        .init("bare CR inside a header value", "GET / HTTP/1.1\r\n\(h)X-A: a\rb\r\n\r\n", .bareCarriageReturn),
        .init("bare CR in the request line", "GET /\r HTTP/1.1\r\n\(h)\r\n", .bareCarriageReturn),
        // A bare CR is the error given whatever else is wrong, and wherever it is: before any other check, or in
        // place of the invalid method, target, version, name or value it also makes.
        .init("bare CR in the method", "G\rET / HTTP/1.1\r\n\(h)\r\n", .bareCarriageReturn),
        .init("bare CR in the version", "GET / HTTP/1.1\r\r\n\(h)\r\n", .bareCarriageReturn),
        .init("bare CR in a header name", "GET / HTTP/1.1\r\n\(h)X\rA: b\r\n\r\n", .bareCarriageReturn),
        .init("bare CR beside a bad Content-Length", "POST / HTTP/1.1\r\n\(h)Content-Length: x\r\nX-A: a\rb\r\n\r\n", .bareCarriageReturn),
        .init(
            "bare CR beside an unknown Expect", "POST / HTTP/1.1\r\n\(h)Expect: magic\r\nContent-Length: 1\r\nX-A: \r\r\n\r\nx",
            .bareCarriageReturn),
        .init("bare CR beside a missing Host", "GET /\r HTTP/1.1\r\n\r\n", .bareCarriageReturn),
        .init("bare CR after a NUL in a value", "GET / HTTP/1.1\r\n\(h)X-A: \u{0}\r\nX-B: \r1\r\n\r\n", .bareCarriageReturn),
        .init("NUL in header value", "GET / HTTP/1.1\r\n\(h)X-A: a\u{0}b\r\n\r\n", .invalidHeaderValue(name: "X-A")),
        .init("DEL in header value", "GET / HTTP/1.1\r\n\(h)X-A: a\u{7F}b\r\n\r\n", .invalidHeaderValue(name: "X-A")),
        .init("escape char in header value", "GET / HTTP/1.1\r\n\(h)X-A: \u{1B}[31m\r\n\r\n", .invalidHeaderValue(name: "X-A")),
        .init("NUL in target", "GET /a\u{0}b HTTP/1.1\r\n\(h)\r\n", .invalidTarget),
        .init("non-ASCII in target", "GET /caf\u{e9} HTTP/1.1\r\n\(h)\r\n", .invalidTarget),
        .init("space inside header name", "GET / HTTP/1.1\r\n\(h)X A: b\r\n\r\n", .whitespaceBeforeColon),
        .init("header without colon", "GET / HTTP/1.1\r\n\(h)NoColonHere\r\n\r\n", .invalidHeaderName),
        .init("empty header name", "GET / HTTP/1.1\r\n\(h): value\r\n\r\n", .invalidHeaderName),
        .init("separator in header name", "GET / HTTP/1.1\r\n\(h)X(A): b\r\n\r\n", .invalidHeaderName),
        // Host.
        .init("missing Host on 1.1", "GET / HTTP/1.1\r\n\r\n", .missingHost),
        .init("duplicate Host", "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", .duplicateHost),
        .init("duplicate Host on 1.0", "GET / HTTP/1.0\r\nHost: a\r\nhost: a\r\n\r\n", .duplicateHost),
        // Host must be uri-host[:port] (RFC 9112 §3.2, RFC 3986 §3.2.2).
        .init("Host with a space", "GET / HTTP/1.1\r\nHost: a b\r\n\r\n", .invalidHost),
        .init("Host with a slash", "GET / HTTP/1.1\r\nHost: a/b\r\n\r\n", .invalidHost),
        .init("Host with userinfo", "GET / HTTP/1.1\r\nHost: u@b\r\n\r\n", .invalidHost),
        .init("Host in angle brackets", "GET / HTTP/1.1\r\nHost: <x>\r\n\r\n", .invalidHost),
        .init("Host list", "GET / HTTP/1.1\r\nHost: a,b\r\n\r\n", .invalidHost),
        .init("Host not UTF-8", bytes: Array("GET / HTTP/1.1\r\nHost: caf".utf8) + [0xE9] + Array("\r\n\r\n".utf8), .invalidHost),
        .init("Host with UTF-8 letters", "GET / HTTP/1.1\r\nHost: caf\u{e9}.example\r\n\r\n", .invalidHost),
        .init("Host port not digits", "GET / HTTP/1.1\r\nHost: a:8o\r\n\r\n", .invalidHost),
        .init("Host with two ports", "GET / HTTP/1.1\r\nHost: a:1:2\r\n\r\n", .invalidHost),
        .init("Host bad percent-escape", "GET / HTTP/1.1\r\nHost: a%zz\r\n\r\n", .invalidHost),
        .init("Host unclosed IP literal", "GET / HTTP/1.1\r\nHost: [::1\r\n\r\n", .invalidHost),
        .init("Host IP literal with junk", "GET / HTTP/1.1\r\nHost: [::1]x\r\n\r\n", .invalidHost),
        .init("Host IP literal not an address", "GET / HTTP/1.1\r\nHost: [a b]\r\n\r\n", .invalidHost),
        .init("Host on 1.0 still checked", "GET / HTTP/1.0\r\nHost: a b\r\n\r\n", .invalidHost),
        // Request line and version.
        .init("lower-case version", "GET / http/1.1\r\n\(h)\r\n", .invalidVersion),
        .init("HTTP/2.0", "GET / HTTP/2.0\r\n\(h)\r\n", .unsupportedVersion),
        .init("HTTP/0.9 version", "GET / HTTP/0.9\r\n\(h)\r\n", .unsupportedVersion),
        .init("version without minor", "GET / HTTP/1\r\n\(h)\r\n", .invalidVersion),
        .init("version with extra digits", "GET / HTTP/1.10\r\n\(h)\r\n", .invalidVersion),
        .init("HTTP/0.9 simple request", "GET /\r\n\r\n", .malformedRequestLine),
        .init("double space after method", "GET  / HTTP/1.1\r\n\(h)\r\n", .malformedRequestLine),
        .init("trailing space after version", "GET / HTTP/1.1 \r\n\(h)\r\n", .malformedRequestLine),
        .init("method with separator", "GE(T / HTTP/1.1\r\n\(h)\r\n", .invalidMethod),
        .init("relative target", "GET users HTTP/1.1\r\n\(h)\r\n", .invalidTarget),
        .init("asterisk target with GET", "GET * HTTP/1.1\r\n\(h)\r\n", .invalidTarget),
        .init("request line too long", longLine, .requestLineTooLong),
        // Found by fuzzing: whole, this gave bareLineFeed; cut after the limit, requestLineTooLong.
        .init(
            "request line too long ending in a bare LF", "GET /" + String(repeating: "a", count: 9000) + " HTTP/1.1\n" + h + "\r\n",
            .requestLineTooLong),
        .init("header section too large", bigHeaders, .headerSectionTooLarge),
        .init("too many header fields", manyHeaders, .tooManyHeaders),
        .init("unsupported expectation", "POST / HTTP/1.1\r\n\(h)Expect: 200-ok\r\nContent-Length: 1\r\n\r\nx", .unsupportedExpectation),
        // Chunked framing.
        .init("chunk size not hex", "POST / HTTP/1.1\r\n\(h)Transfer-Encoding: chunked\r\n\r\nzz\r\n\r\n", .invalidChunkSize),
        .init("chunk size negative", "POST / HTTP/1.1\r\n\(h)Transfer-Encoding: chunked\r\n\r\n-5\r\nhello\r\n0\r\n\r\n", .invalidChunkSize),
        .init("chunk size with 0x prefix", "POST / HTTP/1.1\r\n\(h)Transfer-Encoding: chunked\r\n\r\n0x5\r\nhello\r\n0\r\n\r\n", .invalidChunkSize),
        .init(
            "chunk size overflowing", "POST / HTTP/1.1\r\n\(h)Transfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFFFFFFF1\r\na\r\n0\r\n\r\n",
            .invalidChunkSize),
        .init("chunk size empty", "POST / HTTP/1.1\r\n\(h)Transfer-Encoding: chunked\r\n\r\n\r\n", .invalidChunkSize),
        .init("chunk size with LF only", "POST / HTTP/1.1\r\n\(h)Transfer-Encoding: chunked\r\n\r\n5\nhello\r\n0\r\n\r\n", .bareLineFeed),
        .init("chunk extension too long", longExtension, .chunkLineTooLong),
        .init(
            "chunk extension with control byte", "POST / HTTP/1.1\r\n\(h)Transfer-Encoding: chunked\r\n\r\n1;a=\u{1}\r\na\r\n0\r\n\r\n",
            .invalidChunkSize),
        .init(
            "chunk data longer than size", "POST / HTTP/1.1\r\n\(h)Transfer-Encoding: chunked\r\n\r\n3\r\nabcd\r\n0\r\n\r\n", .invalidChunkTerminator),
        .init("chunk data without CRLF", "POST / HTTP/1.1\r\n\(h)Transfer-Encoding: chunked\r\n\r\n3\r\nabcXX0\r\n\r\n", .invalidChunkTerminator),
        .init("chunked body over the limit", "POST / HTTP/1.1\r\n\(h)Transfer-Encoding: chunked\r\n\r\n200000\r\n", .bodyTooLarge),
        .init("trailers too large", bigTrailers, .headerSectionTooLarge),
        .init("trailer with obs-fold", "POST / HTTP/1.1\r\n\(h)Transfer-Encoding: chunked\r\n\r\n0\r\nT: a\r\n b\r\n\r\n", .obsoleteLineFolding)
    ]
}
