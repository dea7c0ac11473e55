import Engine
import HTTP
import HTTPServer
import Rules

/// Which user a request is for, as far as cluster ownership goes (README, "Cluster mode"): the `{user}` of
/// `/v1/users/{user}/…`, `?targetingKey=` of the OFREP event stream, `context.targetingKey` in an OFREP evaluation or
/// tracking body, the top-level `user` of `POST /v1/evaluate`. `nil` for everything else, and for ids that are not
/// valid: those are answered where they arrive (with the same 400 the owner would give).
public enum ClusterRouting {
    /// OFREP's routes whose body names the user; tracking included.
    static let ofrepBodyPaths = ["/ofrep/v1/evaluate/flags", "/ofrep/v1/evaluate/flags/", "/ofrep/v1/track"]

    public static func user(of request: Request) -> String? {
        let path = request.path
        let candidate: String?
        if path.hasPrefix("/v1/users/") {
            let segment = path.dropFirst("/v1/users/".count).prefix { $0 != "/" }
            candidate = PercentDecoding.decode(segment)
        } else if path == "/ofrep/v1/events" {
            candidate = request.query("targetingKey")
        } else if request.method == "POST", ofrepBodyPaths.contains(String(path)) || path.hasPrefix("/ofrep/v1/evaluate/flags/") {
            candidate = bodyField(request.body) { $0["context"]?["targetingKey"] }
        } else if request.method == "POST", path == "/v1/evaluate" {
            candidate = bodyField(request.body) { $0["user"] }
        } else {
            candidate = nil
        }
        guard let candidate, Identifier.isValid(candidate) else { return nil }
        return candidate
    }

    private static func bodyField(_ body: [UInt8], _ pick: (JSONValue) -> JSONValue?) -> String? {
        guard !body.isEmpty, let document = try? JSONParser().parse(body), case .string(let text)? = pick(document) else { return nil }
        return text
    }

    /// Streams are relayed as they flow; everything else is read whole and answered at once.
    static func isStream(_ request: Request) -> Bool {
        request.method == "GET" && isStreamPath(request.path)
    }

    /// The routes that open an event stream to a GET.
    static func isStreamPath(_ path: Substring) -> Bool {
        path.hasSuffix("/stream") || path == "/ofrep/v1/events"
    }
}
