/// A complete response with a fixed-length body.
public struct HTTPResponse: Sendable {
    public var status: HTTPStatus
    /// The fields when no `prepared` holds them; empty while one does, so a prepared response holds one reference
    /// where it held the list too.
    private var ownHeaders: HTTPHeaders
    /// The body when `prepared` does not carry it.
    private var ownBody: [UInt8]
    /// The fields with their encoded lines, when the response was made from a `PreparedFields`: the encoder copies
    /// the lines instead of writing each field (and, when it carries the body, the body from the same array).
    public private(set) var prepared: PreparedFields?

    /// Changing the fields drops `prepared`, whose lines were made from the old ones; they are changed in place.
    public var headers: HTTPHeaders {
        get { prepared?.headers ?? ownHeaders }
        _modify {
            dropPreparation()
            yield &ownHeaders
        }
        set {
            dropPreparation()
            ownHeaders = newValue
        }
    }

    /// Changing the body drops a `prepared` that carries it, and keeps one that holds the fields alone.
    public var body: [UInt8] {
        get { prepared?.carriedBody ?? ownBody }
        _modify {
            if prepared?.carriesBody == true { dropPreparation() }
            yield &ownBody
        }
        set {
            if prepared?.carriesBody == true { dropPreparation() }
            ownBody = newValue
        }
    }

    /// The body's length, without copying a carried body out.
    public var bodyCount: Int {
        guard let prepared, prepared.carriesBody else { return ownBody.count }
        return prepared.bodyCount
    }

    public init(status: HTTPStatus = .ok, headers: HTTPHeaders = [:], body: [UInt8] = []) {
        self.status = status
        ownHeaders = headers
        ownBody = body
    }

    /// A response whose fields are `prepared`'s; a `prepared` that carries a body of its own has it replaced by
    /// `body` (and its fields written one by one).
    public init(status: HTTPStatus = .ok, prepared: PreparedFields, body: [UInt8] = []) {
        self.status = status
        ownBody = body
        if prepared.carriesBody {
            ownHeaders = prepared.headers
            self.prepared = nil
        } else {
            ownHeaders = [:]
            self.prepared = prepared
        }
    }

    /// A response whose fields and body are both `prepared`'s (`PreparedFields.init(_:body:)`); one that carries no
    /// body answers with an empty one.
    public init(status: HTTPStatus = .ok, preparedWithBody prepared: PreparedFields) {
        self.status = status
        ownHeaders = [:]
        ownBody = []
        self.prepared = prepared
    }

    /// The fields (and a carried body) move back into the response, which then goes out field by field.
    private mutating func dropPreparation() {
        guard let prepared else { return }
        ownHeaders = prepared.headers
        if let carried = prepared.carriedBody { ownBody = carried }
        self.prepared = nil
    }

    /// A JSON response; the body must already be serialized.
    public static func json(_ status: HTTPStatus = .ok, _ body: [UInt8], headers: HTTPHeaders = [:]) -> HTTPResponse {
        // Most answers carry no other field: they share one list, where each made (and freed) a list of its own.
        if headers.isEmpty { return HTTPResponse(status: status, prepared: jsonContentTypeOnly, body: body) }
        var all = headers
        if !all.contains("Content-Type") { all.add("Content-Type", "application/json; charset=utf-8") }
        return HTTPResponse(status: status, headers: all, body: body)
    }

    private static let jsonContentTypeOnly = PreparedFields(["Content-Type": "application/json; charset=utf-8"])

    public static func json(_ status: HTTPStatus = .ok, _ body: String, headers: HTTPHeaders = [:]) -> HTTPResponse {
        json(status, Array(body.utf8), headers: headers)
    }
}
