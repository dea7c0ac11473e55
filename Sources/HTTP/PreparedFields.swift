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
    /// then every field the encoder does not manage, in order. CR and LF are already dropped from the values.
    let lines: [UInt8]
    /// Where the `Content-Type` line ends in `lines`: it goes out before the framing fields, the rest after them.
    let contentTypeEnd: Int

    public init(_ headers: HTTPHeaders) {
        self.headers = headers
        let contentType = headers[.contentType]
        var bound = contentType.map { HeadWriter.fieldBound("Content-Type", $0) } ?? 0
        for field in headers.fields { bound += HeadWriter.fieldBound(field.name, field.value) }
        var contentTypeEnd = 0
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
                count = writer.count
            }
        self.contentTypeEnd = contentTypeEnd
    }
}
