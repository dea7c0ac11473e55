/// The error answer every failure gets, protocol errors included:
/// `{"error":{"code","message","field"?,"retryable"}}` (see the README's "Errors").
///
/// Here, below every handler, so the transport can refuse a malformed or late request in the same shape the API
/// uses without knowing the API.
public enum ErrorResponse {
    /// The JSON body.
    public static func body(code: String, message: String, field: String? = nil, retryable: Bool) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(64 + message.utf8.count)
        out += Array(#"{"error":{"code":"#.utf8)
        appendString(code, to: &out)
        out += Array(#","message":"#.utf8)
        appendString(message, to: &out)
        if let field {
            out += Array(#","field":"#.utf8)
            appendString(field, to: &out)
        }
        out += Array((retryable ? #","retryable":true}}"# : #","retryable":false}}"#).utf8)
        return out
    }

    /// The whole response: the body, as JSON, with `headers` (such as `Retry-After`).
    public static func response(
        _ status: HTTPStatus, code: String, message: String, field: String? = nil,
        retryable: Bool = false, headers: HTTPHeaders = [:]
    ) -> HTTPResponse {
        .json(status, body(code: code, message: message, field: field, retryable: retryable), headers: headers)
    }

    /// The answer to a framing error, before any handler ran.
    public static func response(for error: HTTPParseError) -> HTTPResponse {
        response(error.status, code: error.code, message: error.message)
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// A JSON string (RFC 8259 §7): quote, backslash and control characters escaped, the rest as UTF-8.
    static func appendString(_ text: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): out += [0x5C, byte]
            case 0x0A: out += [0x5C, UInt8(ascii: "n")]
            case 0x0D: out += [0x5C, UInt8(ascii: "r")]
            case 0x09: out += [0x5C, UInt8(ascii: "t")]
            case 0x00..<0x20, 0x7F: out += Array("\\u00".utf8) + [hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0xF)]]
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
