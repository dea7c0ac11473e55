/// A response's field list with the lines the encoder writes for it made once. A response sent again and again
/// from the same list (a kept flag answer, the `Content-Type` of every JSON answer) then costs one copy of those
/// lines per send, where each field's name and value were measured, checked for line breaks and copied each time
/// (about 1.5 k instructions of a read's 17 k).
///
/// Immutable, and made from the list it holds, so the lines can never disagree with `headers`: a response that
/// changes its fields drops its preparation (`HTTPResponse.headers`).
///
/// One allocation: the bytes are the elements of a `ManagedBuffer` whose header holds the fields and where the
/// parts end, so a send reads both from one place. A class holding an array was two objects, and with thousands of
/// kept answers each was a cache miss of its own on every read. A value of one reference (`ManagedBuffer` is not
/// `Sendable`, nor can a subclass of it be, so the value vouches for it: nothing changes the buffer once made).
/// Two values are equal when they are the same preparation.
public struct PreparedFields: Equatable, @unchecked Sendable {
    /// Where the bytes' parts end, and the fields they were made from.
    struct Layout {
        let headers: HTTPHeaders
        /// The bytes written: the `Content-Type` line (none without one), then every field the encoder does not
        /// manage, in order, CR and LF already dropped from the values; then, when carried, the body.
        let count: Int
        /// Where the `Content-Type` line ends: it goes out before the framing fields, the rest after them.
        let contentTypeEnd: Int
        /// Where the field lines end, and the carried body (if any) starts.
        let fieldsEnd: Int
        /// The bytes the buffer was made for: a bound on what the fields' lines take, plus the body.
        let bound: Int
        let carriesBody: Bool
    }

    private let storage: ManagedBuffer<Layout, UInt8>

    /// The fields' lines, for a response whose body is its own (`HTTPResponse.init(status:prepared:body:)`).
    public init(_ headers: HTTPHeaders) {
        self.init(headers, carrying: nil)
    }

    /// The fields' lines and the body after them, for a response sent again and again as it is (a kept flag
    /// answer, `HTTPResponse.init(status:preparedWithBody:)`): its send copies both from one place.
    public init(_ headers: HTTPHeaders, body: [UInt8]) {
        self.init(headers, carrying: body)
    }

    private init(_ headers: HTTPHeaders, carrying body: [UInt8]?) {
        let contentType = headers[.contentType]
        var bound = contentType.map { HeadWriter.fieldBound("Content-Type", $0) } ?? 0
        for field in headers.fields { bound += HeadWriter.fieldBound(field.name, field.value) }
        bound += body?.count ?? 0
        storage = ManagedBuffer.create(minimumCapacity: bound) { _ in
            Layout(headers: headers, count: 0, contentTypeEnd: 0, fieldsEnd: 0, bound: bound, carriesBody: body != nil)
        }
        storage.withUnsafeMutablePointers { layout, bytes in
            var writer = HeadWriter(UnsafeMutableBufferPointer(start: bytes, count: bound))
            if let contentType { writer.appendField("Content-Type", contentType) }
            let contentTypeEnd = writer.count
            for field in headers.fields where !HTTPResponseEncoder.isManaged(field.name) {
                writer.appendField(field.name, field.value)
            }
            let fieldsEnd = writer.count
            if let body { body.withUnsafeBufferPointer { writer.append($0) } }
            layout.pointee = Layout(
                headers: headers, count: writer.count, contentTypeEnd: contentTypeEnd, fieldsEnd: fieldsEnd, bound: bound,
                carriesBody: body != nil)
        }
    }

    // The layout is read through its pointer: `header`, a class's stored property, is read under the runtime's
    // exclusivity check (a thread-local access set), some 60 instructions a read, and a send reads it five times.

    public var headers: HTTPHeaders { storage.withUnsafeMutablePointerToHeader { $0.pointee.headers } }

    /// Whether the bytes end with the response's body (`init(_:body:)`).
    public var carriesBody: Bool { storage.withUnsafeMutablePointerToHeader { $0.pointee.carriesBody } }

    var contentTypeEnd: Int { storage.withUnsafeMutablePointerToHeader { $0.pointee.contentTypeEnd } }
    var fieldsEnd: Int { storage.withUnsafeMutablePointerToHeader { $0.pointee.fieldsEnd } }

    /// The bytes the lines (and a carried body) were given room for.
    public var bound: Int { storage.withUnsafeMutablePointerToHeader { $0.pointee.bound } }

    /// The carried body's length (0 when none is carried).
    public var bodyCount: Int { storage.withUnsafeMutablePointerToHeader { $0.pointee.count - $0.pointee.fieldsEnd } }

    /// The bytes written, lent for the call.
    func withBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        try storage.withUnsafeMutablePointers { layout, bytes in
            try body(UnsafeBufferPointer(start: bytes, count: layout.pointee.count))
        }
    }

    /// The carried body, copied out; `nil` when none is carried.
    public var carriedBody: [UInt8]? {
        guard carriesBody else { return nil }
        return withBytes { Array($0[fieldsEnd...]) }
    }

    public static func == (lhs: PreparedFields, rhs: PreparedFields) -> Bool { lhs.storage === rhs.storage }
}
