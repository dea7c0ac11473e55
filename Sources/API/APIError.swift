import Engine
import HTTP
import HTTPServer
import Rules

/// The error body every failure answers with (docs/api.md, "Conventions" and "Error codes"):
/// `{"error": {"code", "message", "field"?, "retryable"}}`.
public struct APIError: Error, Sendable, Equatable {
    public var status: HTTPStatus
    public var code: String
    public var message: String
    public var field: String?
    public var retryable: Bool
    public var extraHeaders: HTTPHeaders
    /// Structured detail, such as rule diagnostics.
    public var details: JSONValue?

    public init(
        _ status: HTTPStatus, code: String, message: String, field: String? = nil, retryable: Bool = false,
        headers: HTTPHeaders = [:]
    ) {
        self.status = status
        self.code = code
        self.message = message
        self.field = field
        self.retryable = retryable
        self.extraHeaders = headers
        self.details = nil
    }

    public var body: [UInt8] {
        var error: JSONObject = ["code": .string(code), "message": .string(message)]
        if let field { error["field"] = .string(field) }
        error["retryable"] = .bool(retryable)
        if let details { error["details"] = details }
        return JSONWriter.write(.object(["error": .object(error)]))
    }

    public var response: HTTPResponse {
        .json(status, body, headers: extraHeaders)
    }

    public static func notFound(_ message: String) -> APIError {
        APIError(.notFound, code: "not_found", message: message)
    }

    public static func invalidField(_ field: String, _ message: String) -> APIError {
        APIError(.badRequest, code: "invalid_field", message: message, field: field)
    }

    /// Runs a decoder whose errors name a field, answering them as 400 `invalid_field`.
    static func naming<T>(_ decode: () throws(InvalidField) -> T) throws(APIError) -> T {
        do throws(InvalidField) {
            return try decode()
        } catch {
            throw .invalidField(error.field, error.message)
        }
    }

    public static func unavailable(_ code: String, _ message: String, retryAfter: Int = 1) -> APIError {
        APIError(
            .serviceUnavailable, code: code, message: message, retryable: true,
            headers: ["Retry-After": String(retryAfter)])
    }

    /// The answer to a framing error, before any handler ran.
    public init(_ error: HTTPParseError) {
        self.init(error.status, code: error.code, message: error.message)
    }
}
