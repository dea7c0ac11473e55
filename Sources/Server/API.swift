import HTTP
import Rules
import Store

/// The REST API (DESIGN §5): what every handler shares, and the route table.
struct API: Sendable {
    let rules: LiveRules
    let database: Database
    let clock: WallClock
    let metrics: Metrics
    let logger: Logger
    let authenticator: Authenticator
    let rulesPath: String?
    var rulesFormat: RuleSetCompiler.Format = .auto
    let isDraining: @Sendable () -> Bool
    let openConnections: @Sendable () -> Int
    var rateLimiter: RateLimiter?
    var hub: StreamHub?
    var live: LiveUpdates?

    func makeRouter() -> Router {
        var router = Router()
        let authenticator = authenticator
        let limiter = rateLimiter
        router.authorize = { request, scope in
            // Health and readiness stay reachable for probes; everything with a scope is rate limited.
            if scope != nil, let limiter, let refusal = limiter.check(client: RateLimiter.client(of: request.peer)) { return refusal }
            return authenticator.check(request, scope: scope)
        }
        let metrics = metrics
        router.observe = { route, method, status, seconds in metrics.observe(route: route, method: method, status: status, seconds: seconds) }
        registerOperations(in: &router)
        registerUsers(in: &router)
        registerEvaluation(in: &router)
        registerStreams(in: &router)
        registerOFREP(in: &router)
        RulesRoutes(rules: rules).register(in: &router)
        return router
    }

    /// The app version of a request: the body's field wins over the `X-App-Version` header.
    func appVersion(_ request: Request, body: JSONValue? = nil) throws(APIError) -> String? {
        if let value = body?["appVersion"] {
            guard case .string(let text) = value, Version(text) != nil else {
                throw APIError.invalidField("appVersion", "appVersion must be a dotted numeric version such as \"1.4.2\", at most \(Version.maxBytes) bytes")
            }
            return text
        }
        if let header = request.headers["X-App-Version"] {
            guard Version(header) != nil else {
                throw APIError.invalidField("X-App-Version", "X-App-Version must be a dotted numeric version such as \"1.4.2\", at most \(Version.maxBytes) bytes")
            }
            return header
        }
        return nil
    }

    func user(_ request: Request) throws(APIError) -> String {
        let user = request.parameter("user")
        guard Identifier.isValid(user) else {
            throw APIError.invalidField("user", "the user id must be 1-256 bytes of UTF-8 without control characters")
        }
        return user
    }

    func input(_ context: UserContext, user: String, now: Instant, appVersion: String?) -> EvaluationInput {
        EvaluationInput(context: context, now: now, request: RequestAttributes(userID: user, appVersion: appVersion))
    }

    /// Flags whose answer differs between two states of one user. Only flags that read something the write
    /// changed are evaluated.
    func flagChanges(_ ruleSet: RuleSet, user: String, before: UserContext?, after: UserContext?, now: Instant, appVersion: String?) -> [FlagChange] {
        let old = input(before ?? UserContext(), user: user, now: now, appVersion: appVersion)
        let new = input(after ?? UserContext(), user: user, now: now, appVersion: appVersion)
        return ruleSet.flagsAffected(by: UserContext.changedInputs(from: before, to: after)).compactMap { key in
            let flag = ruleSet.flags[key]!
            let previous = flag.evaluate(old)
            let current = flag.evaluate(new)
            guard previous.value != current.value || previous.variant != current.variant else { return nil }
            return FlagChange(key: key, current: current, previous: previous)
        }
    }

    /// Maps a store failure to the API's error.
    func storeError(_ error: StoreError) -> APIError {
        switch error {
        case .rejected(let reducerError):
            return APIError(.unprocessableContent, code: "invalid_operation", message: "ops[\(reducerError.index)]: \(reducerError.message)",
                            field: "ops[\(reducerError.index)]")
        case .storageFailed:
            return APIError.unavailable("storage_failed", "a write to the log failed; no write is accepted until specd restarts", retryAfter: 30)
        case .capacity(let limit):
            return APIError(HTTPStatus(code: 507, reason: "Insufficient Storage"), code: "capacity",
                            message: "specd holds its limit of \(limit) users (limits.maxUsers); existing users still accept writes", retryable: true)
        }
    }
}

/// One flag whose answer a write changed.
struct FlagChange: Sendable {
    let key: String
    let current: Evaluation
    let previous: Evaluation

    var json: JSONValue { ["key": .string(key), "value": current.value ?? .null, "previous": previous.value ?? .null] }
}
