/// A response status code with its reason phrase.
public struct HTTPStatus: Sendable, Hashable {
    public let code: Int
    public let reason: String

    public init(code: Int, reason: String) {
        self.code = code
        self.reason = reason
    }

    public init(code: Int) {
        self.code = code
        self.reason = HTTPStatus.knownReasons[code] ?? "Status \(code)"
    }

    public static let `continue` = HTTPStatus(code: 100, reason: "Continue")
    public static let ok = HTTPStatus(code: 200, reason: "OK")
    public static let created = HTTPStatus(code: 201, reason: "Created")
    public static let accepted = HTTPStatus(code: 202, reason: "Accepted")
    public static let noContent = HTTPStatus(code: 204, reason: "No Content")
    public static let notModified = HTTPStatus(code: 304, reason: "Not Modified")
    public static let badRequest = HTTPStatus(code: 400, reason: "Bad Request")
    public static let unauthorized = HTTPStatus(code: 401, reason: "Unauthorized")
    public static let forbidden = HTTPStatus(code: 403, reason: "Forbidden")
    public static let notFound = HTTPStatus(code: 404, reason: "Not Found")
    public static let methodNotAllowed = HTTPStatus(code: 405, reason: "Method Not Allowed")
    public static let requestTimeout = HTTPStatus(code: 408, reason: "Request Timeout")
    public static let conflict = HTTPStatus(code: 409, reason: "Conflict")
    public static let contentTooLarge = HTTPStatus(code: 413, reason: "Content Too Large")
    public static let uriTooLong = HTTPStatus(code: 414, reason: "URI Too Long")
    public static let unsupportedMediaType = HTTPStatus(code: 415, reason: "Unsupported Media Type")
    public static let expectationFailed = HTTPStatus(code: 417, reason: "Expectation Failed")
    public static let unprocessableContent = HTTPStatus(code: 422, reason: "Unprocessable Content")
    public static let tooManyRequests = HTTPStatus(code: 429, reason: "Too Many Requests")
    public static let requestHeaderFieldsTooLarge = HTTPStatus(code: 431, reason: "Request Header Fields Too Large")
    public static let internalServerError = HTTPStatus(code: 500, reason: "Internal Server Error")
    public static let unimplemented = HTTPStatus(code: 501, reason: "Not Implemented")
    public static let serviceUnavailable = HTTPStatus(code: 503, reason: "Service Unavailable")
    public static let httpVersionNotSupported = HTTPStatus(code: 505, reason: "HTTP Version Not Supported")

    private static let knownReasons: [Int: String] = Dictionary(
        uniqueKeysWithValues: [
            HTTPStatus.continue, .ok, .created, .accepted, .noContent, .notModified, .badRequest, .unauthorized,
            .forbidden, .notFound, .methodNotAllowed, .requestTimeout, .conflict, .contentTooLarge, .uriTooLong,
            .unsupportedMediaType, .expectationFailed, .unprocessableContent, .tooManyRequests,
            .requestHeaderFieldsTooLarge, .internalServerError, .unimplemented, .serviceUnavailable,
            .httpVersionNotSupported
        ].map { ($0.code, $0.reason) })

    /// Responses that never carry content (RFC 9110 §6.4.1).
    public var forbidsBody: Bool { code < 200 || code == 204 || code == 304 }
}
