import HTTP
import HTTPServer
import Rules

/// Conditional GETs for the answers that carry a strong entity tag (docs/api.md, "Conventions": caching): the
/// flags of a user, the OFREP bulk answer and the rule set. One place decides between 304 and 200, so the three
/// cannot drift apart.
enum ETag {
    /// The answer to `request`: 304 with only the `ETag` when its `If-None-Match` matches, else 200 with the JSON
    /// `body`, the `ETag` and then `headers`. `etag` defaults to a hash of the body, which changes exactly when the
    /// answer does.
    static func respond(_ request: Request, body: [UInt8], etag: String? = nil, headers: HTTPHeaders = [:]) -> HTTPResponse {
        let tag = etag ?? strong(ContentHash.hex(body))
        if let header = request.headers["If-None-Match"], matches(header, tag) {
            return HTTPResponse(status: .notModified, headers: ["ETag": tag])
        }
        var all: HTTPHeaders = ["ETag": tag]
        for field in headers { all.add(field.name, field.value) }
        return .json(.ok, body, headers: all)
    }

    /// A strong entity tag: the opaque value in double quotes (RFC 9110 §8.8.3).
    static func strong(_ value: String) -> String { "\"" + value + "\"" }

    /// `If-None-Match` against a strong entity tag (RFC 9110 §13.1.2): a list of tags or `*`. The comparison is weak
    /// (a `W/` tag matches too), as §13.1.2 asks for `If-None-Match`.
    static func matches(_ header: String, _ etag: String) -> Bool {
        header.split(separator: ",").contains { candidate in
            let trimmed = candidate.trimmingOptionalWhitespace
            return trimmed == "*" || trimmed == etag || trimmed == "W/" + etag
        }
    }
}
