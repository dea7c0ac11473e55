import HTTP
import HTTPServer
import Rules

/// Conditional requests for the answers that carry a strong entity tag (docs/api.md, "Conventions": caching): a
/// user's flags, one flag, the OFREP answers and the rule set. One place decides between 304 and 200, so they
/// cannot drift apart.
enum ETag {
    /// What flag answers say to caches: keep a copy, but revalidate it on every use (a write may change the answer
    /// at any instant, so no freshness lifetime is safe: never a `max-age`), and only in the client's own cache
    /// (answers are per user).
    static let flagAnswerCaching: HTTPHeaders = ["Cache-Control": "private, no-cache"]

    /// The answer to `request`: 304 when its `If-None-Match` matches, else 200 with the JSON `body`. Both carry the
    /// `ETag` and then `headers`: a 304 sends the caching headers its 200 would have (RFC 9110 §15.4.5), so a
    /// cache that refreshes its copy from it keeps `no-cache`. `etag` defaults to a hash of the body, which changes
    /// exactly when the answer does.
    static func respond(_ request: Request, body: [UInt8], etag: String? = nil, headers: HTTPHeaders = [:]) -> HTTPResponse {
        let tag = etag ?? strongHash(body)
        // Sized once: built field by field, then copied to add the content type, the list grew three times.
        var all = HTTPHeaders(minimumCapacity: headers.count + 2)
        all.add("ETag", tag)
        for field in headers { all.add(field.name, field.value) }
        if let header = request.headers["If-None-Match"], matches(header, tag) {
            return HTTPResponse(status: .notModified, headers: all)
        }
        all.add("Content-Type", "application/json; charset=utf-8")
        return HTTPResponse(status: .ok, headers: all, body: body)
    }

    /// A strong entity tag: the opaque value in double quotes (RFC 9110 §8.8.3).
    static func strong(_ value: String) -> String { "\"" + value + "\"" }

    /// `strong(ContentHash.hex(body))` made in one string: every flag answer is tagged, on the read path, and the
    /// hex digits, their zero padding and the quotes were four strings.
    static func strongHash(_ body: [UInt8]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in body {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return String(unsafeUninitializedCapacity: 18) { text in
            let digits: StaticString = "0123456789abcdef"
            text[0] = UInt8(ascii: "\"")
            for index in 0..<16 {
                let nibble = Int((hash >> UInt64(60 - 4 * index)) & 0xF)
                text[1 + index] = digits.withUTF8Buffer { $0[nibble] }
            }
            text[17] = UInt8(ascii: "\"")
            return 18
        }
    }

    /// `If-None-Match` against a strong entity tag (RFC 9110 §13.1.2): a list of tags or `*`. The comparison is weak
    /// (a `W/` tag matches too), as §13.1.2 asks for `If-None-Match`.
    static func matches(_ header: String, _ etag: String) -> Bool {
        header.split(separator: ",").contains { candidate in
            let trimmed = candidate.trimmingOptionalWhitespace
            return trimmed == "*" || trimmed == etag || trimmed == "W/" + etag
        }
    }
}
