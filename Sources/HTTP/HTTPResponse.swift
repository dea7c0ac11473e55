/// A complete response with a fixed-length body.
public struct HTTPResponse: Sendable {
    public var status: HTTPStatus
    /// The fields when `preparation` does not hold them; empty while it does, so a prepared response holds one
    /// reference where it held the list too.
    private var ownHeaders: HTTPHeaders
    /// The body when `preparation` does not carry it.
    private(set) var ownBody: [UInt8]
    /// What the response was made from, if anything: a `PreparedFields` whose lines give its fields, its body, or
    /// both. Each is given up on its own: a handler (or the CORS layer) that adds a field keeps sending the carried
    /// body from it, uncopied. One word (the cases' tag rides in the reference's spare bits), as the optional it
    /// replaced: a response is copied whole between the handler and the connection.
    enum Preparation {
        case none
        case fields(PreparedFields)
        case fieldsAndBody(PreparedFields)
        case body(PreparedFields)
    }

    private(set) var preparation: Preparation = .none

    /// The fields with their encoded lines, while the response's fields are a `PreparedFields`'s: the encoder
    /// copies the lines instead of writing each field.
    public var prepared: PreparedFields? {
        switch preparation {
        case .fields(let prepared), .fieldsAndBody(let prepared): prepared
        case .none, .body: nil
        }
    }

    /// The preparation whose carried body the response sends, if any.
    var carrier: PreparedFields? {
        switch preparation {
        case .fieldsAndBody(let prepared), .body(let prepared): prepared
        case .none, .fields: nil
        }
    }

    /// Changing the fields gives up their prepared lines, made from the old ones; they are changed in place.
    public var headers: HTTPHeaders {
        get { prepared?.headers ?? ownHeaders }
        _modify {
            unprepareFields()
            yield &ownHeaders
        }
        set {
            unprepareFields()
            ownHeaders = newValue
        }
    }

    /// Changing a carried body copies it out first; prepared fields stay prepared.
    public var body: [UInt8] {
        get { carrier.map { $0.carriedBody ?? [] } ?? ownBody }
        _modify {
            uncarryBody()
            yield &ownBody
        }
        set {
            uncarryBody()
            ownBody = newValue
        }
    }

    /// The body's length, without copying a carried body out.
    public var bodyCount: Int { carrier?.bodyCount ?? ownBody.count }

    public init(status: HTTPStatus = .ok, headers: HTTPHeaders = [:], body: [UInt8] = []) {
        self.status = status
        ownHeaders = headers
        ownBody = body
    }

    /// A response whose fields are `prepared`'s, with `body` (not a body `prepared` may carry).
    public init(status: HTTPStatus = .ok, prepared: PreparedFields, body: [UInt8] = []) {
        self.status = status
        ownHeaders = [:]
        ownBody = body
        preparation = .fields(prepared)
    }

    /// A response whose fields and body are both `prepared`'s (`PreparedFields.init(_:body:)`); one that carries no
    /// body answers with an empty one.
    public init(status: HTTPStatus = .ok, preparedWithBody prepared: PreparedFields) {
        self.status = status
        ownHeaders = [:]
        ownBody = []
        preparation = prepared.carriesBody ? .fieldsAndBody(prepared) : .fields(prepared)
    }

    private mutating func unprepareFields() {
        switch preparation {
        case .none, .body: return
        case .fields(let prepared):
            ownHeaders = prepared.headers
            preparation = .none
        case .fieldsAndBody(let prepared):
            ownHeaders = prepared.headers
            preparation = .body(prepared)
        }
    }

    private mutating func uncarryBody() {
        switch preparation {
        case .none, .fields: return
        case .body(let prepared):
            ownBody = prepared.carriedBody ?? []
            preparation = .none
        case .fieldsAndBody(let prepared):
            ownBody = prepared.carriedBody ?? []
            preparation = .fields(prepared)
        }
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
