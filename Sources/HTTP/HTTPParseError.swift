/// Every way a request can be refused while it is framed. Each case carries its own status and stable code;
/// after any of them the connection answers once and closes without reading on: after a framing
/// error the next request's start is unknown, and guessing it is how requests get smuggled (RFC 9112 §11.2).
public enum HTTPParseError: Error, Equatable, Sendable {
    case requestLineTooLong
    case headerSectionTooLarge
    case tooManyHeaders
    case bodyTooLarge
    case malformedRequestLine
    case invalidMethod
    case invalidTarget
    case invalidVersion
    case unsupportedVersion
    case bareLineFeed
    case bareCarriageReturn
    case obsoleteLineFolding
    case whitespaceBeforeColon
    case invalidHeaderName
    case invalidHeaderValue(name: String)
    case missingHost
    case duplicateHost
    case invalidHost
    case invalidContentLength
    case duplicateContentLength
    case contentLengthWithTransferEncoding
    case transferEncodingInHTTP10
    case chunkedNotFinal
    case unsupportedTransferCoding
    case invalidChunkSize
    case chunkLineTooLong
    case invalidChunkTerminator
    case unsupportedExpectation

    /// The response status (RFC 9110 §15, RFC 6585 §5 for 431).
    public var status: HTTPStatus {
        switch self {
        case .requestLineTooLong: return .uriTooLong
        case .headerSectionTooLarge, .tooManyHeaders: return .requestHeaderFieldsTooLarge
        case .bodyTooLarge: return .contentTooLarge
        case .unsupportedVersion: return .httpVersionNotSupported
        case .unsupportedTransferCoding: return .unimplemented
        case .unsupportedExpectation: return .expectationFailed
        default: return .badRequest
        }
    }

    /// A stable machine-readable code for the error JSON.
    public var code: String {
        switch self {
        case .requestLineTooLong: return "request_line_too_long"
        case .headerSectionTooLarge: return "headers_too_large"
        case .tooManyHeaders: return "too_many_headers"
        case .bodyTooLarge: return "body_too_large"
        case .malformedRequestLine: return "malformed_request_line"
        case .invalidMethod: return "invalid_method"
        case .invalidTarget: return "invalid_target"
        case .invalidVersion: return "invalid_version"
        case .unsupportedVersion: return "unsupported_version"
        case .bareLineFeed: return "bare_lf"
        case .bareCarriageReturn: return "bare_cr"
        case .obsoleteLineFolding: return "obs_fold"
        case .whitespaceBeforeColon: return "whitespace_before_colon"
        case .invalidHeaderName: return "invalid_header_name"
        case .invalidHeaderValue: return "invalid_header_value"
        case .missingHost: return "missing_host"
        case .duplicateHost: return "duplicate_host"
        case .invalidHost: return "invalid_host"
        case .invalidContentLength: return "invalid_content_length"
        case .duplicateContentLength: return "duplicate_content_length"
        case .contentLengthWithTransferEncoding: return "content_length_with_transfer_encoding"
        case .transferEncodingInHTTP10: return "transfer_encoding_in_http10"
        case .chunkedNotFinal: return "chunked_not_final"
        case .unsupportedTransferCoding: return "unsupported_transfer_coding"
        case .invalidChunkSize: return "invalid_chunk_size"
        case .chunkLineTooLong: return "chunk_line_too_long"
        case .invalidChunkTerminator: return "invalid_chunk_terminator"
        case .unsupportedExpectation: return "unsupported_expectation"
        }
    }

    /// A sentence for humans; names the header where one is at fault.
    public var message: String {
        switch self {
        case .requestLineTooLong: return "the request line is longer than the server accepts"
        case .headerSectionTooLarge: return "the header section is larger than the server accepts"
        case .tooManyHeaders: return "the request has more header fields than the server accepts"
        case .bodyTooLarge: return "the request body is larger than the server accepts"
        case .malformedRequestLine: return "the request line is not 'METHOD SP target SP HTTP-version'"
        case .invalidMethod: return "the method is not a valid token"
        case .invalidTarget: return "the request target is not an origin-form, absolute-form or '*' target"
        case .invalidVersion: return "the HTTP version is malformed"
        case .unsupportedVersion: return "only HTTP/1.0 and HTTP/1.1 are supported"
        case .bareLineFeed: return "lines must end with CRLF, not a bare LF"
        case .bareCarriageReturn: return "a bare CR is not allowed in the request head"
        case .obsoleteLineFolding: return "obsolete line folding is not allowed"
        case .whitespaceBeforeColon: return "whitespace between a field name and its colon is not allowed"
        case .invalidHeaderName: return "a header field name is not a valid token"
        case .invalidHeaderValue(let name): return "header field '\(name)' contains a control character"
        case .missingHost: return "HTTP/1.1 requests must carry a Host header"
        case .duplicateHost: return "the request carries more than one Host header"
        case .invalidHost: return "the Host header must be host[:port]: a name, an IPv4 address or a bracketed IP literal"
        case .invalidContentLength: return "Content-Length must be a decimal number of bytes"
        case .duplicateContentLength: return "the request carries more than one Content-Length"
        case .contentLengthWithTransferEncoding: return "Content-Length and Transfer-Encoding must not both be sent"
        case .transferEncodingInHTTP10: return "Transfer-Encoding is not allowed in HTTP/1.0 requests"
        case .chunkedNotFinal: return "Transfer-Encoding must be exactly 'chunked'"
        case .unsupportedTransferCoding: return "only the chunked transfer coding is supported"
        case .invalidChunkSize: return "a chunk size is not a valid hexadecimal number"
        case .chunkLineTooLong: return "a chunk-size line or its extensions are too long"
        case .invalidChunkTerminator: return "chunk data must be followed by CRLF"
        case .unsupportedExpectation: return "only 'Expect: 100-continue' is supported"
        }
    }
}
