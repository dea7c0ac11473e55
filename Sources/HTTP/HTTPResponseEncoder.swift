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
    /// `extra` goes out after the response's own fields, as if it were the last of them.
    public static func encode(
        _ response: HTTPResponse, version: HTTPVersion, keepAlive: Bool, isHead: Bool, date: String,
        extra: HTTPHeaders.Field? = nil, into buffer: inout [UInt8]
    ) {
        guard let extra else {
            return encode(
                response, version: version, keepAlive: keepAlive, isHead: isHead, date: date, extraName: nil, extraValue: nil,
                into: &buffer)
        }
        var value = extra.value
        value.withUTF8 { value in
            encode(
                response, version: version, keepAlive: keepAlive, isHead: isHead, date: date, extraName: extra.name,
                extraValue: value, into: &buffer)
        }
    }

    /// The same with the extra field's value lent as bytes: the connection's `X-Request-Id`, spelled on its stack
    /// (`RequestID`), added without making a string of it or copying the response's field list to append it.
    public static func encode(
        _ response: HTTPResponse, version: HTTPVersion, keepAlive: Bool, isHead: Bool, date: String, extraName: String?,
        extraValue: UnsafeBufferPointer<UInt8>?, into buffer: inout [UInt8]
    ) {
        encode(
            response, version: version, keepAlive: keepAlive, isHead: isHead, dateLine: DateLine(date), extraName: extraName,
            extraValue: extraValue, into: &buffer)
    }

    /// The same with the `Date` line made already (a server's date cache makes it once a second).
    public static func encode(
        _ response: HTTPResponse, version: HTTPVersion, keepAlive: Bool, isHead: Bool, dateLine: DateLine, extraName: String?,
        extraValue: UnsafeBufferPointer<UInt8>?, into buffer: inout [UInt8]
    ) {
        let framing: Framing = response.status.forbidsBody ? .none : .length(response.bodyCount)
        let sendsBody = !isHead && !response.status.forbidsBody
        // Switched over once, in place: bound with `if let`, an optional preparation was copied and destroyed
        // through the runtime's generic witnesses (a merged outlined copy), some 200 instructions a response; a
        // second switch for the body copied the preparation again (a retain and a release).
        switch response.preparation {
        case .fields(let prepared):
            encodeHead(
                status: response.status, prepared: prepared, framing: framing, version: version, keepAlive: keepAlive,
                dateLine: dateLine, extraName: extraName, extraValue: extraValue, into: &buffer)
            if sendsBody { buffer.append(contentsOf: response.ownBody) }
        case .fieldsAndBody(let prepared):
            encodeHead(
                status: response.status, prepared: prepared, framing: framing, version: version, keepAlive: keepAlive,
                dateLine: dateLine, extraName: extraName, extraValue: extraValue, into: &buffer)
            if sendsBody { appendCarriedBody(of: prepared, into: &buffer) }
        case .body(let prepared):
            encodeHead(
                status: response.status, headers: response.headers, framing: framing, version: version,
                keepAlive: keepAlive, dateLine: dateLine, extraName: extraName, extraValue: extraValue, into: &buffer)
            if sendsBody { appendCarriedBody(of: prepared, into: &buffer) }
        case .none:
            encodeHead(
                status: response.status, headers: response.headers, framing: framing, version: version,
                keepAlive: keepAlive, dateLine: dateLine, extraName: extraName, extraValue: extraValue, into: &buffer)
            if sendsBody { buffer.append(contentsOf: response.ownBody) }
        }
    }

    /// A prepared body goes from the prepared array straight into the output: through the head's scratch it was
    /// copied twice, and a large body made the scratch a heap allocation.
    private static func appendCarriedBody(of prepared: PreparedFields, into buffer: inout [UInt8]) {
        prepared.withBytes { buffer.append(contentsOf: UnsafeBufferPointer(rebasing: $0[prepared.fieldsEnd...])) }
    }

    /// The head alone; `extra` as `encode` has it.
    public static func encodeHead(
        status: HTTPStatus, headers: HTTPHeaders, framing: Framing, version: HTTPVersion, keepAlive: Bool,
        date: String, extra: HTTPHeaders.Field? = nil, into buffer: inout [UInt8]
    ) {
        guard let extra else {
            return encodeHead(
                status: status, headers: headers, framing: framing, version: version, keepAlive: keepAlive, date: date,
                extraName: nil, extraValue: nil, into: &buffer)
        }
        var value = extra.value
        value.withUTF8 { value in
            encodeHead(
                status: status, headers: headers, framing: framing, version: version, keepAlive: keepAlive, date: date,
                extraName: extra.name, extraValue: value, into: &buffer)
        }
    }

    /// The head is written into one scratch allocation sized from its parts, then appended to `buffer` in one copy:
    /// appending it byte by byte and field by field checked the array's uniqueness and capacity at every step, the
    /// larger part of the cost of a small response.
    public static func encodeHead(
        status: HTTPStatus, headers: HTTPHeaders, framing: Framing, version: HTTPVersion, keepAlive: Bool,
        date: String, extraName: String?, extraValue: UnsafeBufferPointer<UInt8>?, into buffer: inout [UInt8]
    ) {
        encodeHead(
            status: status, headers: headers, framing: framing, version: version, keepAlive: keepAlive,
            dateLine: DateLine(date), extraName: extraName, extraValue: extraValue, into: &buffer)
    }

    static func encodeHead(
        status: HTTPStatus, headers: HTTPHeaders, framing: Framing, version: HTTPVersion, keepAlive: Bool,
        dateLine: DateLine, extraName: String?, extraValue: UnsafeBufferPointer<UInt8>?, into buffer: inout [UInt8]
    ) {
        let contentType = headers[.contentType]
        let extraName = extraName.flatMap { isManaged($0) ? nil : $0 }
        let extraValue = extraValue ?? UnsafeBufferPointer(start: nil, count: 0)
        // The fields are read through a buffer pointer, in place: iterating the array copied each field out, a
        // retain and a release of both its strings, twice per field.
        headers.fields.withUnsafeBufferPointer { fields in
            // An upper bound: CR and LF dropped from values only make the head shorter.
            var bound = HeadWriter.statusLineBound(status) + dateLine.count
            if let contentType { bound += HeadWriter.fieldBound("Content-Type", contentType) }
            bound += HeadWriter.framingBound + HeadWriter.connectionBound + 2
            for index in fields.indices { bound += HeadWriter.fieldBound(fields[index].name, fields[index].value) }
            if let extraName { bound += HeadWriter.fieldBound(extraName, valueCount: extraValue.count) }
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: bound) { scratch in
                var head = HeadWriter(scratch)
                head.appendStatusLine(version, status)
                dateLine.withBytes { head.append($0) }
                if let contentType { head.appendField("Content-Type", contentType) }
                head.appendFraming(framing)
                head.appendConnection(keepAlive: keepAlive, version: version)
                for index in fields.indices where !isManaged(fields[index].name) {
                    head.appendField(fields[index].name, fields[index].value)
                }
                if let extraName { head.appendField(extraName, extraValue) }
                head.appendCRLF()
                buffer.append(contentsOf: UnsafeBufferPointer(rebasing: scratch[..<head.count]))
            }
        }
    }

    /// The head of a response with prepared fields: the same bytes `encodeHead(status:headers:…)` writes for
    /// `prepared.headers`, with the fields' lines copied as made (`PreparedFields`); a body it carries is not
    /// part of the head.
    static func encodeHead(
        status: HTTPStatus, prepared: PreparedFields, framing: Framing, version: HTTPVersion, keepAlive: Bool,
        dateLine: DateLine, extraName: String?, extraValue: UnsafeBufferPointer<UInt8>?, into buffer: inout [UInt8]
    ) {
        let extraName = extraName.flatMap { isManaged($0) ? nil : $0 }
        let extraValue = extraValue ?? UnsafeBufferPointer(start: nil, count: 0)
        var bound = HeadWriter.statusLineBound(status) + dateLine.count + prepared.fieldsEnd
        bound += HeadWriter.framingBound + HeadWriter.connectionBound + 2
        if let extraName { bound += HeadWriter.fieldBound(extraName, valueCount: extraValue.count) }
        prepared.withBytes { lines in
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: bound) { scratch in
                var head = HeadWriter(scratch)
                head.appendStatusLine(version, status)
                dateLine.withBytes { head.append($0) }
                head.append(UnsafeBufferPointer(rebasing: lines[..<prepared.contentTypeEnd]))
                head.appendFraming(framing)
                head.appendConnection(keepAlive: keepAlive, version: version)
                head.append(UnsafeBufferPointer(rebasing: lines[prepared.contentTypeEnd..<prepared.fieldsEnd]))
                if let extraName { head.appendField(extraName, extraValue) }
                head.appendCRLF()
                buffer.append(contentsOf: UnsafeBufferPointer(rebasing: scratch[..<head.count]))
            }
        }
    }

    /// One chunk of a chunked body (RFC 9112 §7.1); empty input yields nothing, since a zero chunk ends the body.
    public static func encodeChunk<Bytes: Collection>(_ bytes: Bytes, into buffer: inout [UInt8])
    where Bytes.Element == UInt8 {
        guard !bytes.isEmpty else { return }
        buffer.append(contentsOf: String(bytes.count, radix: 16).utf8)
        buffer.append(ASCII.cr)
        buffer.append(ASCII.lf)
        buffer.append(contentsOf: bytes)
        buffer.append(ASCII.cr)
        buffer.append(ASCII.lf)
    }

    /// The last chunk with no trailers.
    public static let lastChunk: [UInt8] = Array("0\r\n\r\n".utf8)

    /// The interim response sent before reading a body the client is waiting to send.
    public static func continueResponse(version: HTTPVersion) -> [UInt8] {
        Array("\(version.text) 100 Continue\r\n\r\n".utf8)
    }

    @inline(__always)
    static func isManaged(_ name: String) -> Bool {
        // Most fields a handler sets are none of these: their length alone says so, without comparing names.
        // Each length is one managed name's: one comparison at most, and none when the first letter already differs
        // (`ETag` against `Date`, `X-Request-Id` against `Content-Type`: some 80 instructions each).
        let managed: String
        let initial: UInt8
        switch name.utf8.count {
        case 4: (managed, initial) = ("Date", UInt8(ascii: "d"))
        case 10: (managed, initial) = ("Connection", UInt8(ascii: "c"))
        case 12: (managed, initial) = ("Content-Type", UInt8(ascii: "c"))
        case 14: (managed, initial) = ("Content-Length", UInt8(ascii: "c"))
        case 17: (managed, initial) = ("Transfer-Encoding", UInt8(ascii: "t"))
        default: return false
        }
        guard let first = name.utf8.first, ASCII.lower(first) == initial else { return false }
        return HTTPHeaders.namesMatch(managed, name)
    }
}
