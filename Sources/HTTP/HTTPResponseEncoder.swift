/// Serializes responses in a fixed header order: status line, `Date`, `Content-Type`, framing
/// (`Content-Length` or `Transfer-Encoding: chunked`), `Connection`, then the remaining fields as given.
/// Head and body go out in one buffer so one `write` can carry both: written apart, Nagle's algorithm (RFC 896)
/// holds the body until the client's delayed ACK (RFC 1122 §4.2.3.2) arrives (40 ms on Linux).
public enum HTTPResponseEncoder {
    /// How the body that follows the head is framed.
    public enum Framing: Sendable, Equatable {
        case length(Int)
        case chunked
        /// No framing header at all: 1xx, 204, 304.
        case none
    }

    /// Headers the encoder writes itself; copies in `headers` are ignored so framing can never be doubled.
    static let managedNames = ["Date", "Content-Length", "Transfer-Encoding", "Connection", "Content-Type"]

    /// Encodes a whole response. `isHead` keeps `Content-Length` but drops the body (RFC 9110 §9.3.2).
    /// `extra` goes out after the response's own fields, as if it were the last of them: the connection's
    /// `X-Request-Id`, added without copying the response's field list to append to it.
    public static func encode(
        _ response: HTTPResponse, version: HTTPVersion, keepAlive: Bool, isHead: Bool, date: String,
        extra: HTTPHeaders.Field? = nil, into buffer: inout [UInt8]
    ) {
        let framing: Framing = response.status.forbidsBody ? .none : .length(response.body.count)
        encodeHead(
            status: response.status, headers: response.headers, framing: framing, version: version,
            keepAlive: keepAlive, date: date, extra: extra, into: &buffer)
        if !isHead, !response.status.forbidsBody { buffer.append(contentsOf: response.body) }
    }

    public static func encodeHead(
        status: HTTPStatus, headers: HTTPHeaders, framing: Framing, version: HTTPVersion, keepAlive: Bool,
        date: String, extra: HTTPHeaders.Field? = nil, into buffer: inout [UInt8]
    ) {
        appendBytes(version.text, into: &buffer)
        buffer.append(ASCII.space)
        appendDecimal(status.code, into: &buffer)
        buffer.append(ASCII.space)
        appendBytes(status.reason, into: &buffer)
        appendCRLF(into: &buffer)
        appendField("Date", date, into: &buffer)
        if let contentType = headers["Content-Type"] { appendField("Content-Type", contentType, into: &buffer) }
        switch framing {
        case .length(let length):
            appendBytes("Content-Length: ", into: &buffer)
            appendDecimal(length, into: &buffer)
            appendCRLF(into: &buffer)
        case .chunked:
            appendField("Transfer-Encoding", "chunked", into: &buffer)
        case .none:
            break
        }
        if !keepAlive {
            appendField("Connection", "close", into: &buffer)
        } else if version == .http10 {
            appendField("Connection", "keep-alive", into: &buffer)
        }
        for field in headers where !isManaged(field.name) {
            appendField(field.name, field.value, into: &buffer)
        }
        if let extra, !isManaged(extra.name) { appendField(extra.name, extra.value, into: &buffer) }
        appendCRLF(into: &buffer)
    }

    /// One chunk of a chunked body (RFC 9112 §7.1); empty input yields nothing, since a zero chunk ends the body.
    public static func encodeChunk<Bytes: Collection>(_ bytes: Bytes, into buffer: inout [UInt8])
    where Bytes.Element == UInt8 {
        guard !bytes.isEmpty else { return }
        buffer.append(contentsOf: String(bytes.count, radix: 16).utf8)
        appendCRLF(into: &buffer)
        buffer.append(contentsOf: bytes)
        appendCRLF(into: &buffer)
    }

    /// The last chunk with no trailers.
    public static let lastChunk: [UInt8] = Array("0\r\n\r\n".utf8)

    /// The interim response sent before reading a body the client is waiting to send.
    public static func continueResponse(version: HTTPVersion) -> [UInt8] {
        Array("\(version.text) 100 Continue\r\n\r\n".utf8)
    }

    static func isManaged(_ name: String) -> Bool {
        // Most fields a handler sets are none of these: their length alone says so, without comparing names.
        switch name.utf8.count {
        case 4, 10, 12, 14, 17:
            for managed in managedNames where HTTPHeaders.namesMatch(managed, name) { return true }
            return false
        default:
            return false
        }
    }

    @inline(__always) static func appendField(_ name: String, _ value: String, into buffer: inout [UInt8]) {
        appendBytes(name, into: &buffer)
        buffer.append(ASCII.colon)
        buffer.append(ASCII.space)
        // Values come from our own handlers; CR and LF are dropped anyway so no handler can split a response.
        var value = value
        value.withUTF8 { bytes in
            if !bytes.contains(where: { $0 == ASCII.cr || $0 == ASCII.lf }) {
                buffer.append(contentsOf: bytes)
                return
            }
            for byte in bytes where byte != ASCII.cr && byte != ASCII.lf { buffer.append(byte) }
        }
        appendCRLF(into: &buffer)
    }

    /// A string's bytes in one copy (appending its `utf8` view goes element by element).
    @inline(__always) static func appendBytes(_ text: String, into buffer: inout [UInt8]) {
        var text = text
        text.withUTF8 { buffer.append(contentsOf: $0) }
    }

    @inline(__always) static func appendCRLF(into buffer: inout [UInt8]) {
        buffer.append(ASCII.cr)
        buffer.append(ASCII.lf)
    }

    static func appendDecimal(_ value: Int, into buffer: inout [UInt8]) {
        if value < 10 {
            buffer.append(UInt8(ascii: "0") + UInt8(value))
            return
        }
        var digits:
            (
                UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8
            ) =
                (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        var rest = value
        withUnsafeMutableBytes(of: &digits) { raw in
            while rest > 0 {
                raw[count] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
                count += 1
            }
            for index in stride(from: count - 1, through: 0, by: -1) { buffer.append(raw[index]) }
        }
    }
}
