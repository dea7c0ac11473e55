/// Writes a response head into scratch memory the encoder sized beforehand (`HTTPResponseEncoder.encodeHead`).
/// Every bound below covers what the matching append writes, so no append checks for room: the encoder's
/// total of them is the allocation's size.
struct HeadWriter {
    private let base: UnsafeMutablePointer<UInt8>
    private let capacity: Int
    private(set) var count = 0

    init(_ scratch: UnsafeMutableBufferPointer<UInt8>) {
        base = scratch.baseAddress!
        capacity = scratch.count
    }

    /// `HTTP/1.1 ` + up to 20 characters of code + ` ` + reason + CRLF.
    static func statusLineBound(_ status: HTTPStatus) -> Int { 8 + 1 + 20 + 1 + status.reason.utf8.count + 2 }
    /// `name: value` + CRLF.
    static func fieldBound(_ name: String, _ value: String) -> Int { fieldBound(name, valueCount: value.utf8.count) }
    static func fieldBound(_ name: String, valueCount: Int) -> Int { name.utf8.count + 2 + valueCount + 2 }
    /// `Content-Length: ` + up to 20 digits + CRLF, longer than `Transfer-Encoding: chunked` + CRLF.
    static let framingBound = 16 + 20 + 2
    /// `Connection: keep-alive` + CRLF, longer than `Connection: close` + CRLF.
    static let connectionBound = 24

    mutating func append(_ byte: UInt8) {
        precondition(count < capacity, "response head larger than its bound")
        base[count] = byte
        count += 1
    }

    /// Native strings are read in place; `withUTF8` on a copy cost a retain and a release of the text per call,
    /// a dozen per response head.
    mutating func append(_ text: String) {
        let done: Void? = text.utf8.withContiguousStorageIfAvailable { append($0) }
        if done == nil { for byte in text.utf8 { append(byte) } }
    }

    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        precondition(count + bytes.count <= capacity, "response head larger than its bound")
        (base + count).update(from: source, count: bytes.count)
        count += bytes.count
    }

    mutating func appendCRLF() {
        append(ASCII.cr)
        append(ASCII.lf)
    }

    /// `HTTP/1.1 200 OK` + CRLF.
    mutating func appendStatusLine(_ version: HTTPVersion, _ status: HTTPStatus) {
        if version == .http11, let line = Self.commonStatusLine(status) {
            line.withUTF8Buffer { append($0) }
            return
        }
        append(version.text)
        append(ASCII.space)
        appendDecimal(status.code)
        append(ASCII.space)
        append(status.reason)
        appendCRLF()
    }

    /// The status lines most responses carry, spelled whole: written part by part (version, code, reason), a
    /// status line was some 270 instructions of every response. Only for the standard reason: a status made with
    /// another reason writes it.
    private static func commonStatusLine(_ status: HTTPStatus) -> StaticString? {
        switch status.code {
        case 200 where status.reason == "OK": "HTTP/1.1 200 OK\r\n"
        case 201 where status.reason == "Created": "HTTP/1.1 201 Created\r\n"
        case 202 where status.reason == "Accepted": "HTTP/1.1 202 Accepted\r\n"
        case 204 where status.reason == "No Content": "HTTP/1.1 204 No Content\r\n"
        case 304 where status.reason == "Not Modified": "HTTP/1.1 304 Not Modified\r\n"
        case 400 where status.reason == "Bad Request": "HTTP/1.1 400 Bad Request\r\n"
        case 404 where status.reason == "Not Found": "HTTP/1.1 404 Not Found\r\n"
        default: nil
        }
    }

    /// The framing field (none for `.none`), within `framingBound`.
    mutating func appendFraming(_ framing: HTTPResponseEncoder.Framing) {
        switch framing {
        case .length(let length):
            ("Content-Length: " as StaticString).withUTF8Buffer { append($0) }
            appendDecimal(length)
            appendCRLF()
        case .chunked:
            appendField("Transfer-Encoding", "chunked")
        case .none:
            break
        }
    }

    /// `Connection: close` when the connection ends after this response; `keep-alive` when it does not on
    /// HTTP/1.0, where closing is the default (RFC 9112 §9.3); nothing otherwise. Within `connectionBound`.
    mutating func appendConnection(keepAlive: Bool, version: HTTPVersion) {
        if !keepAlive {
            appendField("Connection", "close")
        } else if version == .http10 {
            appendField("Connection", "keep-alive")
        }
    }

    /// A field line. Values come from our own handlers; CR and LF are dropped anyway, so no handler can split a
    /// response (a header injected through a value).
    mutating func appendField(_ name: String, _ value: String) {
        let done: Void? = value.utf8.withContiguousStorageIfAvailable { bytes in appendField(name, bytes) }
        if done == nil {
            append(name)
            append(ASCII.colon)
            append(ASCII.space)
            for byte in value.utf8 where byte != ASCII.cr && byte != ASCII.lf { append(byte) }
            appendCRLF()
        }
    }

    /// The same with the value as bytes.
    @inline(__always)
    mutating func appendField(_ name: String, _ value: UnsafeBufferPointer<UInt8>) {
        append(name)
        append(ASCII.colon)
        append(ASCII.space)
        if Self.containsLineBreak(value) {
            for byte in value where byte != ASCII.cr && byte != ASCII.lf { append(byte) }
        } else {
            append(value)
        }
        appendCRLF()
    }

    /// Values are visible text: one word test per eight bytes (`ByteSearch.containsByte(below:)`) rules out CR and
    /// LF, both below 14; only a value with a control byte is looked at byte by byte. A compare per byte was most of
    /// the cost of writing a field.
    @inline(__always)
    private static func containsLineBreak(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard ByteSearch.containsByte(below: ASCII.cr + 1, in: bytes) else { return false }
        return bytes.contains { $0 == ASCII.cr || $0 == ASCII.lf }
    }

    /// Decimal digits, with a leading `-` for a negative value: at most 20 characters for any `Int`.
    mutating func appendDecimal(_ value: Int) {
        if value < 0 { append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var digits = 1
        var rest = magnitude / 10
        while rest > 0 {
            digits += 1
            rest /= 10
        }
        precondition(count + digits <= capacity, "response head larger than its bound")
        var index = count + digits
        repeat {
            index -= 1
            base[index] = UInt8(ascii: "0") + UInt8(magnitude % 10)
            magnitude /= 10
        } while magnitude > 0
        count += digits
    }
}
