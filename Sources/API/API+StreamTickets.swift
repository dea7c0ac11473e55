import Engine
import HTTP
import HTTPServer
import Rules

/// `POST /v1/stream-tickets` and the check every scoped route goes through (docs/api.md, "Stream tickets").
extension API {
    func registerStreamTickets(in router: inout Router) {
        // No route scope: the scope a ticket needs is the stream's (evaluate for a user's, admin for the global
        // one), known only once the body is read; the handler checks it, rate limit included.
        router.add("POST", "/v1/stream-tickets", sync: { request throws(APIError) in try issueStreamTicket(request) })
    }

    /// The rate limit, then a stream ticket (on a stream route that presents one) or the token. A ticket replaces
    /// the token for the one stream it was issued for; anywhere else `ticket` is an ordinary query parameter.
    func authorize(_ request: Request, scope: Scope?) -> APIError? {
        // Health and readiness stay reachable for probes; everything with a scope is rate limited.
        guard let scope else { return authenticator.check(request, scope: nil) }
        if let rateLimiter, let refusal = rateLimiter.check(client: RateLimiter.client(of: request.peer)) { return refusal }
        if let ticket = request.query("ticket"), let target = StreamTarget(request: request) {
            return tickets.check(ticket, for: target, metrics: metrics)
        }
        return authenticator.check(request, scope: scope)
    }

    /// `{"stream": "/v1/users/u/stream"}` → `{"ticket", "expiresAt", "stream"}`: the caller's token must allow
    /// that stream.
    func issueStreamTicket(_ request: Request) throws(APIError) -> HTTPResponse {
        let body = try RequestBody.json(request)
        guard case .object(let fields) = body else { throw APIError.invalidField("body", "the body must be a JSON object") }
        for key in fields.keys where key != "stream" {
            throw APIError.invalidField(key, "\(key) is not a field of a ticket request (stream)")
        }
        guard case .string(let path)? = fields["stream"] else {
            throw APIError.invalidField("stream", "stream must be a stream path: /v1/users/{user}/stream, /v1/stream or /ofrep/v1/events")
        }
        guard let target = StreamTarget(path: path) else {
            throw APIError.invalidField(
                "stream", "stream must be a stream path: /v1/users/{user}/stream, /v1/stream or /ofrep/v1/events?targetingKey={user}")
        }
        // The ticket route itself is rate limited like the stream it opens, and needs that stream's scope.
        if let refusal = authorize(request, scope: target.scope) {
            throw refusal
        }
        let issued = tickets.issue(for: target)
        metrics.increment("stream_tickets_issued_total")
        let answer: JSONValue = ["ticket": .string(issued.ticket), "expiresAt": .string(ISO8601.format(issued.expiresAt)), "stream": .string(path)]
        return .json(.ok, JSONWriter.write(answer), headers: ["Cache-Control": "no-store"])
    }
}

extension StreamTickets {
    /// Redeems `ticket` for `target`: `nil` when it opens the stream, otherwise the answer to give (401
    /// `invalid_ticket`, or 503 while the table of spent tickets is full, the ticket unspent).
    func check(_ ticket: String, for target: StreamTarget, metrics: Metrics) -> APIError? {
        switch redeem(ticket, for: target) {
        case .accepted:
            metrics.increment("stream_tickets_redeemed_total")
            return nil
        case .refused:
            metrics.increment("stream_tickets_refused_total")
            return APIError(
                .unauthorized, code: "invalid_ticket",
                message:
                    "the stream ticket is unknown, expired, already used or issued for another stream; ask POST /v1/stream-tickets for a new one",
                field: "ticket")
        case .busy(let seconds):
            metrics.increment("stream_tickets_full_total")
            return APIError.unavailable(
                "too_many_tickets", "\(capacity) stream tickets were used in the last 30 seconds; retry this one when one expires",
                retryAfter: seconds)
        }
    }
}
