import HTTP
import HTTPServer
import Rules

/// Request body decoding shared by every JSON route: 415 for another media type, 400 naming the byte offset for
/// malformed JSON.
enum RequestBody {
    static func json(_ request: Request, allowEmpty: Bool = false) throws(APIError) -> JSONValue {
        if request.body.isEmpty {
            if allowEmpty { return .object([:]) }
            throw APIError(.badRequest, code: "missing_body", message: "a JSON body is required")
        }
        if let type = request.header(.contentType) {
            let media = type.split(separator: ";").first.map { $0.trimmingOptionalWhitespace.lowercased() } ?? ""
            guard media == "application/json" || media.hasSuffix("+json") else {
                throw APIError(
                    .unsupportedMediaType, code: "unsupported_media_type",
                    message: "the body must be application/json, not \(media)", field: "Content-Type")
            }
        }
        do {
            return try JSONParser().parse(request.body)
        } catch {
            throw APIError(.badRequest, code: "invalid_json", message: error.description)
        }
    }
}
