import Engine
import HTTP
import HTTPServer
import Rules
import Store

/// The REST API (see docs/api.md): what every handler shares, and the route table.
///
/// Threads: handlers run on the connection's loop thread; a write's completion runs on the thread that
/// acknowledged it (see `Engine`), and its answer reaches the connection through the `ResponseSink`, which hops
/// back to the connection's own loop.
public struct API: Sendable {
    let engine: Engine
    let hub: StreamHub
    let transport: ServerStatus
    let authenticator: Authenticator
    let rateLimiter: RateLimiter?
    /// Browsers' access (the `cors` setting); without it only OpenFeature's routes allow other origins.
    public var cors = CORSPolicy.openFeatureOnly
    /// One-time tickets that open a stream without a token in the URL.
    public let tickets: StreamTickets
    /// Cluster mode's view of the other members; `nil` when this daemon runs alone.
    public var cluster: ClusterPeers?
    /// One-flag answers kept for the next read that would compute the same bytes (`limits.answerCacheBytes`).
    public var answers = AnswerCache(capacityBytes: AnswerCache.defaultCapacityBytes)

    var rules: RulesHost { engine.rules }
    var store: ContextStore { engine.store }
    var clock: WallClock { engine.clock }
    var metrics: Metrics { engine.metrics }
    var logger: Logger { engine.logger }

    public init(engine: Engine, hub: StreamHub, transport: ServerStatus, authenticator: Authenticator, rateLimiter: RateLimiter?) {
        self.engine = engine
        self.hub = hub
        self.transport = transport
        self.authenticator = authenticator
        self.rateLimiter = rateLimiter
        // Derived from the tokens, so every replica configured alike checks the tickets any of them issues.
        self.tickets = StreamTickets(clock: engine.clock, key: StreamTickets.key(tokens: authenticator.tokens))
    }

    public func makeRouter() -> Router {
        var router = Router()
        router.authorize = { [self] request, scope in authorize(request, scope: scope) }
        router.cors = cors
        router.metrics = metrics
        registerOperations(in: &router)
        registerUsers(in: &router)
        registerEvaluation(in: &router)
        registerStreams(in: &router)
        registerOFREP(in: &router)
        registerDisplay(in: &router)
        RulesRoutes(rules: rules).register(in: &router)
        registerStreamTickets(in: &router)
        registerDashboard(in: &router)
        registerTracking(in: &router)
        registerHistory(in: &router)
        registerAdminOperations(in: &router)
        return router
    }

    /// The app version of a request: the body's field wins over the `X-App-Version` header.
    func appVersion(_ request: Request, body: JSONValue? = nil) throws(APIError) -> String? {
        if let value = body?["appVersion"] {
            guard case .string(let text) = value, Version.isValid(text) else {
                throw APIError.invalidField(
                    "appVersion", "appVersion must be a dotted numeric version such as \"1.4.2\", at most \(Version.maxBytes) bytes")
            }
            return text
        }
        if let header = request.header(.appVersion) {
            guard Version.isValid(header) else {
                throw APIError.invalidField(
                    "X-App-Version", "X-App-Version must be a dotted numeric version such as \"1.4.2\", at most \(Version.maxBytes) bytes")
            }
            return header
        }
        return nil
    }

    func user(_ request: Request) throws(APIError) -> String {
        let user = request.parameter("user")
        try Self.checkUser(user)
        return user
    }

    static func checkUser(_ user: String) throws(APIError) {
        guard Identifier.isValid(user) else {
            throw APIError.invalidField("user", "the user id must be 1-256 bytes of UTF-8 without control characters")
        }
    }

    func input(_ context: UserContext, user: String, now: Instant, appVersion: String?) -> EvaluationInput {
        engine.input(context, user: user, now: now, appVersion: appVersion)
    }

    /// Maps a store failure to the API's error.
    /// Static, as `writeError`: a write's completion calls it, and a closure reaching a method of `API` copied the
    /// whole `API` value into its context (every field retained and released per write).
    static func storeError(_ error: StoreError) -> APIError {
        switch error {
        case .rejected(let reducerError):
            return APIError(
                .unprocessableContent, code: "invalid_operation", message: "ops[\(reducerError.index)]: \(reducerError.message)",
                field: "ops[\(reducerError.index)]")
        case .storageFailed:
            return APIError.unavailable("storage_failed", "a write to the log failed; no write is accepted until specd restarts", retryAfter: 30)
        case .capacity(let limit):
            return APIError(
                HTTPStatus(code: 507, reason: "Insufficient Storage"), code: "capacity",
                message: "specd holds its limit of \(limit) users (limits.maxUsers); existing users still accept writes", retryable: true)
        }
    }
}
