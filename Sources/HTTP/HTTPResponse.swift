/// A complete response with a fixed-length body.
public struct HTTPResponse: Sendable {
    public var status: HTTPStatus
    /// Changing the fields drops `prepared`, whose lines were made from the old ones. (No `oldValue` read: the
    /// fields are still changed in place.)
    public var headers: HTTPHeaders {
        didSet { prepared = nil }
    }
    public var body: [UInt8]
    /// `headers` with their encoded lines, when the response was made from a `PreparedFields`: the encoder copies
    /// the lines instead of writing each field.
    public private(set) var prepared: PreparedFields?

    public init(status: HTTPStatus = .ok, headers: HTTPHeaders = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A response whose fields are `prepared`'s.
    public init(status: HTTPStatus = .ok, prepared: PreparedFields, body: [UInt8] = []) {
        self.status = status
        headers = prepared.headers
        self.body = body
        self.prepared = prepared
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
