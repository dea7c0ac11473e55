/// A complete response with a fixed-length body.
public struct HTTPResponse: Sendable {
    public var status: HTTPStatus
    public var headers: HTTPHeaders
    public var body: [UInt8]

    public init(status: HTTPStatus = .ok, headers: HTTPHeaders = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON response; the body must already be serialized.
    public static func json(_ status: HTTPStatus = .ok, _ body: [UInt8], headers: HTTPHeaders = [:]) -> HTTPResponse {
        // Most answers carry no other field: they share one list, where each made (and freed) a list of its own.
        if headers.isEmpty { return HTTPResponse(status: status, headers: jsonContentTypeOnly, body: body) }
        var all = headers
        if !all.contains("Content-Type") { all.add("Content-Type", "application/json; charset=utf-8") }
        return HTTPResponse(status: status, headers: all, body: body)
    }

    private static let jsonContentTypeOnly: HTTPHeaders = ["Content-Type": "application/json; charset=utf-8"]

    public static func json(_ status: HTTPStatus = .ok, _ body: String, headers: HTTPHeaders = [:]) -> HTTPResponse {
        json(status, Array(body.utf8), headers: headers)
    }
}
