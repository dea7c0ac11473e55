/// A response's field list with the lines the encoder writes for it made once. A response sent again and again
/// from the same list (a kept flag answer, the `Content-Type` of every JSON answer) then costs one copy of those
/// lines per send, where each field's name and value were measured, checked for line breaks and copied each time
/// (about 1.5 k instructions of a read's 17 k).
///
/// Immutable, and made from the list it holds, so the lines can never disagree with `headers`: a response that
/// changes its fields drops its preparation (`HTTPResponse.headers`).
public final class PreparedFields: Sendable {
    public let headers: HTTPHeaders
    /// What `HTTPResponseEncoder.encodeHead` writes for these fields: the `Content-Type` line (none without one),
    /// then every field the encoder does not manage, in order. CR and LF are already dropped from the values. Then,
    /// when the body is carried (`init(_:body:)`), the body's bytes.
    let lines: [UInt8]
    /// Where the `Content-Type` line ends in `lines`: it goes out before the framing fields, the rest after them.
    let contentTypeEnd: Int
    /// Where the field lines end in `lines`, and the carried body (if any) starts.
    let fieldsEnd: Int
    /// Whether `lines` ends with the response's body (`init(_:body:)`).
    public let carriesBody: Bool

    public convenience init(_ headers: HTTPHeaders) {
        self.init(headers, carrying: nil)
    }

    /// The fields and the body in one allocation, for a response sent again and again as it is (a kept flag
    /// answer): its send copies both from one place, where the lines and the body were two arrays, each read
    /// from memory on its own once many answers are kept (`HTTPResponse.init(status:preparedWithBody:)`).
    public convenience init(_ headers: HTTPHeaders, body: [UInt8]) {
        self.init(headers, carrying: body)
    }

    private init(_ headers: HTTPHeaders, carrying body: [UInt8]?) {
        self.headers = headers
        let contentType = headers[.contentType]
        var bound = contentType.map { HeadWriter.fieldBound("Content-Type", $0) } ?? 0
        for field in headers.fields { bound += HeadWriter.fieldBound(field.name, field.value) }
        bound += body?.count ?? 0
        var contentTypeEnd = 0
        var fieldsEnd = 0
        // No fields, no room: the writer needs an address.
        lines =
            bound == 0
            ? []
            : [UInt8](unsafeUninitializedCapacity: bound) { buffer, count in
                var writer = HeadWriter(buffer)
                if let contentType { writer.appendField("Content-Type", contentType) }
                contentTypeEnd = writer.count
                for field in headers.fields where !HTTPResponseEncoder.isManaged(field.name) {
                    writer.appendField(field.name, field.value)
                }
                fieldsEnd = writer.count
                if let body { body.withUnsafeBufferPointer { writer.append($0) } }
                count = writer.count
            }
        self.contentTypeEnd = contentTypeEnd
        self.fieldsEnd = fieldsEnd
        carriesBody = body != nil
    }

    /// The bytes the lines (and a carried body) were given room for.
    public var capacity: Int { lines.capacity }

    /// The carried body's length (0 when none is carried).
    public var bodyCount: Int { lines.count - fieldsEnd }

    /// The carried body, copied out; `nil` when none is carried.
    public var carriedBody: [UInt8]? { carriesBody ? Array(lines[fieldsEnd...]) : nil }
}
