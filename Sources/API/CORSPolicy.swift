import HTTP
import HTTPServer

/// Which web origins may call specd from a browser, and the CORS headers (the Fetch standard's "CORS protocol")
/// that say so on every answer: handlers', refusals' (401, 403, 429), 404s' and 405s' alike, because a browser that
/// gets an answer without them reports a network error and its code cannot tell a bad token from a dead server.
///
/// specd never sends `Access-Control-Allow-Credentials`: it authenticates by header (`Authorization`, `X-API-Key`,
/// or a stream ticket in the query), never by cookie, so a browser needs no credentialed mode and `*` stays safe.
public struct CORSPolicy: Sendable, Equatable {
    /// The origins allowed, each as a browser serializes it (`scheme://host[:port]`, lowercase, no default port).
    public enum Origins: Sendable, Equatable {
        /// `Access-Control-Allow-Origin: *`: any page may read the answers (they still need a token).
        case any
        /// Only these origins; the answer names the requesting one and varies on `Origin`.
        case listed([String])
    }

    public var origins: Origins
    /// The path prefixes the policy covers; `nil` covers every route.
    public var pathPrefixes: [String]? {
        didSet { prefixBytes = pathPrefixes.map { $0.map { Array($0.utf8) } } }
    }
    /// `pathPrefixes` as bytes, for `covers`, asked on every request: each prefix's UTF-8 read out of its string
    /// there cost some 150 instructions a request (a retain, a release, a generic comparison of slices).
    private var prefixBytes: [[UInt8]]?

    /// Equal by what an operator set: the origins and the prefixes as text (the bytes derive from them).
    public static func == (lhs: CORSPolicy, rhs: CORSPolicy) -> Bool {
        lhs.origins == rhs.origins && lhs.pathPrefixes == rhs.pathPrefixes
    }

    public init(origins: Origins, pathPrefixes: [String]? = nil) {
        self.origins = origins
        self.pathPrefixes = pathPrefixes
        prefixBytes = pathPrefixes.map { $0.map { Array($0.utf8) } }
    }

    /// Without a `cors` setting: OpenFeature's remote evaluation protocol is called from browser SDKs on any
    /// origin, so its routes allow any origin; the rest of the API answers same-origin pages only.
    public static let openFeatureOnly = CORSPolicy(origins: .any, pathPrefixes: ["/ofrep/"])

    /// Response headers a page may read besides the safelisted ones: `ETag` to send `If-None-Match`,
    /// `Retry-After` to back off, `X-Request-Id` to report a request.
    static let exposedHeaders = "ETag, Retry-After, X-Request-Id"

    /// Request headers a page may send: the two ways to present a token, the body's type, revalidation,
    /// OFREP's and the API's `X-App-Version`, and `Last-Event-ID` that a stream resumes from.
    static let allowedHeaders = "Authorization, Content-Type, If-None-Match, X-App-Version, Last-Event-ID, X-API-Key, X-Request-Id"

    /// Seconds a browser may cache a preflight's answer (browsers cap it: Chromium at 7200).
    static let maxAgeSeconds = "600"

    /// Whether the policy speaks for answers to this path.
    func covers(_ path: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let prefixBytes else { return true }
        for prefix in prefixBytes where Self.starts(path, with: prefix) { return true }
        return false
    }

    private static func starts(_ path: UnsafeBufferPointer<UInt8>, with prefix: [UInt8]) -> Bool {
        guard prefix.count <= path.count else { return false }
        return prefix.withUnsafeBufferPointer { prefix in
            for index in prefix.indices where prefix[index] != path[index] { return false }
            return true
        }
    }

    /// What the policy decides for a request's `Origin` header.
    enum Decision: Equatable {
        /// Allowed: these headers go on the answer.
        case allowed(HTTPHeaders)
        /// Not allowed (or no `Origin`): no CORS headers, but the answer still depends on `Origin` when the policy
        /// lists origins, so caches must keep one copy per origin.
        case refused(HTTPHeaders)

        var headers: HTTPHeaders {
            switch self {
            case .allowed(let headers), .refused(let headers): headers
            }
        }
    }

    func decide(origin: String?) -> Decision {
        switch origins {
        case .any:
            return .allowed(["Access-Control-Allow-Origin": "*", "Access-Control-Expose-Headers": Self.exposedHeaders])
        case .listed(let allowed):
            guard let origin, allowed.contains(where: { Self.sameOrigin($0, origin) }) else { return .refused(["Vary": "Origin"]) }
            return .allowed(
                ["Access-Control-Allow-Origin": origin, "Vary": "Origin", "Access-Control-Expose-Headers": Self.exposedHeaders])
        }
    }

    /// The answer to a preflight (an `OPTIONS` request with `Access-Control-Request-Method`), before any auth:
    /// a preflight carries no credentials by definition. `methods` are the methods the path's routes answer.
    ///
    /// An origin that is not listed gets 403 with the error body and no `Access-Control-Allow-*` header. The Fetch
    /// standard fails a preflight on either a non-2xx status or a missing allow header, so browsers behave the same
    /// as with an empty 204; the 403 is for the person with curl, who reads why (Spring answers the same way).
    func preflight(origin: String?, methods: [String]) -> HTTPResponse {
        switch decide(origin: origin) {
        case .refused(let headers):
            var refusal = APIError(
                .forbidden, code: "origin_not_allowed",
                message: "the origin '\(origin ?? "")' is not in cors.origins; a browser on it may not call this route", field: "Origin")
            refusal.extraHeaders = headers
            return refusal.response
        case .allowed(var headers):
            var allowed = methods
            if allowed.contains("GET"), !allowed.contains("HEAD") { allowed.append("HEAD") }
            if !allowed.contains("OPTIONS") { allowed.append("OPTIONS") }
            headers.set("Access-Control-Allow-Methods", allowed.sorted().joined(separator: ", "))
            headers.set("Access-Control-Allow-Headers", Self.allowedHeaders)
            headers.set("Access-Control-Max-Age", Self.maxAgeSeconds)
            return HTTPResponse(status: .noContent, headers: headers)
        }
    }

    /// Origins compare ASCII case-insensitively: the configured ones are stored lowercase, and browsers send
    /// lowercase scheme and host, but a hand-written `Origin` need not be.
    static func sameOrigin(_ configured: String, _ presented: String) -> Bool {
        guard configured.utf8.count == presented.utf8.count else { return false }
        return zip(configured.utf8, presented.utf8).allSatisfy { $0 == ($1 >= 65 && $1 <= 90 ? $1 | 0x20 : $1) }
    }
}
