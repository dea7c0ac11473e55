import HTTP

/// `If-None-Match` against a strong entity tag (RFC 9110 §13.1.2): a list of tags or `*`.
enum ETagMatching {
    static func matches(_ header: String, _ etag: String) -> Bool {
        header.split(separator: ",").contains { candidate in
            let trimmed = candidate.trimmingOptionalWhitespace
            return trimmed == "*" || trimmed == etag || trimmed == "W/" + etag
        }
    }
}
