import Rules

/// One thing specd runs or waits for, as the operations view lists it (docs/api.md, "Operations"), in Statable's
/// shape: `idle` (waiting: a pending delayed fire), `loading` (running), `loaded` (done), `failed` (with `error`).
public struct TrackedOperation: Sendable, Equatable {
    public enum State: String, Sendable {
        case idle, loading, loaded, failed
    }

    /// Kinds specd itself tracks; other sources (webhook deliveries) bring their own.
    public enum Kind {
        public static let reload = "reload"
        public static let snapshot = "snapshot"
        public static let compaction = "compaction"
        public static let recovery = "recovery"
        public static let delayedFire = "delayedFire"
    }

    public let id: String
    public let kind: String
    public var state: State
    public let startedAt: Instant
    public var finishedAt: Instant?
    public var error: String?
    public var detail: JSONObject

    public init(
        id: String, kind: String, state: State, startedAt: Instant, finishedAt: Instant? = nil, error: String? = nil,
        detail: JSONObject = [:]
    ) {
        self.id = id
        self.kind = kind
        self.state = state
        self.startedAt = startedAt
        self.finishedAt = finishedAt
        self.error = error
        self.detail = detail
    }

    public var json: JSONValue {
        var object: JSONObject = [
            "id": .string(id), "kind": .string(kind), "state": .string(state.rawValue), "startedAt": .string(ISO8601.format(startedAt))
        ]
        if let finishedAt { object["finishedAt"] = .string(ISO8601.format(finishedAt)) }
        if let error { object["error"] = .string(error) }
        object["detail"] = .object(detail)
        return .object(object)
    }
}
