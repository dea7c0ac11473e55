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
        respond(request, Tagged(body: body, etag: etag ?? strongHash(body), headers: headers))
    }

    /// A body with its tag and both answers' header lists, made once, and a reference: a kept answer handed out of
    /// the cache on every read is one retain, where the four fields of a value were copied (and their optional
    /// destroyed through the runtime's generic witness, some 150 instructions a read). Immutable.
    final class Tagged: Sendable {
        let etag: String
        /// The 200's fields: the tag, then `headers`, then the content type.
        let ok: HTTPHeaders
        /// The fields after the tag, for a 304.
        private let extra: HTTPHeaders
        private let content: Content

        /// The body as given, or the 200's fields and body prepared as one (`PreparedFields.init(_:body:)`).
        private enum Content: Sendable {
            case plain([UInt8])
            case prepared(PreparedFields)
        }

        init(body: [UInt8], etag: String, headers: HTTPHeaders) {
            self.etag = etag
            extra = headers
            // Sized once: grown field by field, the list was reallocated three times.
            var fields = HTTPHeaders(minimumCapacity: headers.count + 2)
            fields.add("ETag", etag)
            for field in headers { fields.add(field.name, field.value) }
            fields.add("Content-Type", "application/json; charset=utf-8")
            ok = fields
            content = .plain(body)
        }

        private init(etag: String, ok: HTTPHeaders, extra: HTTPHeaders, content: Content) {
            self.etag = etag
            self.ok = ok
            self.extra = extra
            self.content = content
        }

        /// The same answer with its 200's fields written and its body placed after them, in one array, for an
        /// answer sent again and again (one the answer cache keeps, `AnswerCache.prepare`): each send then copies
        /// one run of bytes, and a kept answer's read touches that array alone, where the fields' lines and the
        /// body were two (each a miss of its own once thousands of answers are kept). One-off answers (a rule set,
        /// a dashboard page) stay plain: preparing them would copy them for nothing.
        func prepared() -> (answer: Tagged, fields: PreparedFields) {
            if case .prepared(let fields) = content { return (self, fields) }
            let fields = PreparedFields(ok, body: body)
            return (Tagged(etag: etag, ok: ok, extra: extra, content: .prepared(fields)), fields)
        }

        var body: [UInt8] {
            switch content {
            case .plain(let body): body
            case .prepared(let prepared): prepared.carriedBody ?? []
            }
        }

        /// The 200.
        var okResponse: HTTPResponse {
            switch content {
            case .plain(let body): HTTPResponse(status: .ok, headers: ok, body: body)
            case .prepared(let prepared): HTTPResponse(status: .ok, preparedWithBody: prepared)
            }
        }

        /// The 200's fields and body prepared as one, when made `prepared`.
        var preparedFields: PreparedFields? {
            if case .prepared(let prepared) = content { return prepared }
            return nil
        }

        /// Whether the 200 goes out prepared.
        var isPrepared: Bool { preparedFields != nil }

        /// What the answer holds, prepared or not: the body, each field's line, an object and an array (for a
        /// budget that counts what a kept answer holds, `AnswerCache`).
        var heldBytes: Int {
            switch content {
            case .plain(let body):
                return ok.fields.reduce(64 + body.count) { $0 + $1.name.utf8.count + $1.value.utf8.count + 4 }
            case .prepared(let prepared):
                // The buffer as made: sized to a bound on its lines, at least what they fill.
                return 64 + prepared.bound
            }
        }

        /// The 304's fields: the tag, then `headers`. Made when a 304 is sent: kept beside the 200's, it was a
        /// second list (and a copy) for every answer, and most answers are 200s.
        var notModified: HTTPHeaders {
            var fields = HTTPHeaders(minimumCapacity: extra.count + 1)
            fields.add("ETag", etag)
            for field in extra { fields.add(field.name, field.value) }
            return fields
        }
    }

    static func respond(_ request: Request, _ tagged: Tagged) -> HTTPResponse {
        respond(ifNoneMatch: request.header(.ifNoneMatch), tagged)
    }

    /// The same with the request's `If-None-Match` read already.
    static func respond(ifNoneMatch: String?, _ tagged: Tagged) -> HTTPResponse {
        if let header = ifNoneMatch, matches(header, tagged.etag) {
            return HTTPResponse(status: .notModified, headers: tagged.notModified)
        }
        return tagged.okResponse
    }

    /// A strong entity tag: the opaque value in double quotes (RFC 9110 §8.8.3).
    static func strong(_ value: String) -> String { "\"" + value + "\"" }

    /// The body's tag: a 64-bit hash as 16 hex digits in quotes, made in one string. Every flag answer is tagged,
    /// on the read path, so the body is taken eight bytes a step (FNV-1a's byte a step cost about 1 k instructions
    /// for an answer of 150 bytes). Stable across runs, platforms and nodes (unlike `Hasher`): a client may
    /// revalidate against any node of a cluster. Each step is a bijection of the state, so two bodies of one
    /// length that differ in a single word never share a tag.
    static func strongHash(_ body: [UInt8]) -> String {
        var hash: UInt64 = 0x9E37_79B9_7F4A_7C15
        body.withUnsafeBytes { raw in
            var offset = 0
            while offset + 8 <= raw.count {
                hash = mix(hash ^ ByteWords.word(raw, at: offset))
                offset += 8
            }
            // The length last, after a mix: XORed in beside the tail, `z}` and `{}\0` shared a tag.
            hash = mix(mix(hash ^ ByteWords.tail(raw, from: offset)) ^ UInt64(raw.count))
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

    /// SplitMix64's finalizer: invertible, and every input bit reaches every output bit.
    private static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
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
