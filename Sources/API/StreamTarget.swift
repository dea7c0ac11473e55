import Engine
import HTTP
import HTTPServer
import Rules

/// A stream route a ticket opens: the global stream, one user's stream, or OpenFeature's refetch stream for one
/// targeting key. A ticket is bound to one target, so a ticket for u's stream cannot open v's.
enum StreamTarget: Hashable, Sendable {
    /// `GET /v1/stream`.
    case global
    /// `GET /v1/users/{u}/stream`: the user id as bytes (ids compare byte for byte, never as Unicode text).
    case user(ByteKey)
    /// `GET /ofrep/v1/events?targetingKey=u` (the empty key hears reloads only).
    case openFeature(ByteKey)

    /// The scope a token needs to ask for a ticket to this stream: the same the stream route needs.
    var scope: Scope {
        switch self {
        case .global: .admin
        case .user, .openFeature: .evaluate
        }
    }

    /// The path a ticket is asked for, as it would be requested: `/v1/stream`, `/v1/users/{u}/stream` (the id
    /// percent-encoded where it holds `/`, `?`, `%` …), `/ofrep/v1/events?targetingKey=u`. Other query parameters
    /// (`flags`, `events`, `include`) are the stream's business, not the ticket's. `nil`: not a stream route.
    init?(path text: String) {
        let parts = text.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let path = parts[0]
        let query = parts.count > 1 ? PercentDecoding.queryItems(parts[1]) : []
        self.init(path: path, targetingKey: query.first { $0.name == "targetingKey" }?.value)
    }

    /// The target a stream request opens, from its raw path and decoded query.
    init?(request: Request) {
        self.init(path: request.path, targetingKey: request.query("targetingKey"))
    }

    private init?(path: Substring, targetingKey: String?) {
        if path == "/v1/stream" {
            self = .global
            return
        }
        if path == "/ofrep/v1/events" {
            let key = targetingKey ?? ""
            guard key.isEmpty || Identifier.isValid(key) else { return nil }
            self = .openFeature(ByteKey(key))
            return
        }
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        // "", "v1", "users", u, "stream"
        guard segments.count == 5, segments[0].isEmpty, segments[1] == "v1", segments[2] == "users", segments[4] == "stream",
            let user = PercentDecoding.decode(segments[3]), Identifier.isValid(user)
        else { return nil }
        self = .user(ByteKey(user))
    }
}
