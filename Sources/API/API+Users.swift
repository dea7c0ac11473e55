import Engine
import HTTP
import HTTPServer
import Rules
import Store

extension API {
    func registerUsers(in router: inout Router) {
        router.add("POST", "/v1/users/{user}/events/{event}", scope: .write) { request, sink in donate(request, sink) }
        // A donation is matched before the others (`QuickRoute`), its parameters handed over as decoded.
        router.answerFirst("POST", "/v1/users/{user}/events/{event}") { request, parameters, sink in
            donate(request, user: parameters.0, event: parameters.1, sink)
        }
        router.add("GET", "/v1/users/{user}/events/{event}", scope: .evaluate, sync: { request throws(APIError) in try donationSummary(request) })
        router.add("DELETE", "/v1/users/{user}/events/{event}", scope: .write) { request, sink in resetDonations(request, sink) }
        router.add("PATCH", "/v1/users/{user}/context", scope: .write) { request, sink in updateContext(request, sink) }
        router.add("GET", "/v1/users/{user}", scope: .evaluate, sync: { request throws(APIError) in try readUser(request) })
        router.add("DELETE", "/v1/users/{user}", scope: .admin) { request, sink in eraseUser(request, sink) }
    }

    /// The event name from the path. Its length limit (`limits.maxKeyBytes`) is the store's to enforce.
    func event(_ request: Request) throws(APIError) -> String {
        let event = request.parameter("event")
        try Self.checkEvent(event)
        return event
    }

    static func checkEvent(_ event: String) throws(APIError) {
        guard Identifier.isValidKey(event) else {
            throw APIError.invalidField("event", "the event name must be non-empty UTF-8 without control characters")
        }
    }

    /// A refused write: a reducer refusal is 422 with its own code (`overflow`, `limit_exceeded`,
    /// `invalid_operation`) and names the field at fault, `ops[i]…` for a context update or `event` for a donation.
    static func writeError(_ error: StoreError, donation: Bool = false) -> APIError {
        guard case .rejected(let refusal) = error else { return Self.storeError(error) }
        let field = donation ? "event" : refusal.field
        return APIError(.unprocessableContent, code: refusal.code, message: "\(field): \(refusal.message)", field: field)
    }

    /// `POST /v1/users/{u}/events/{e}`: count, first/last, history, `events[e]`, then immediate triggers, in one
    /// logged step; answered once durable with the new summary, the flags that changed and what fired.
    func donate(_ request: Request, _ sink: ResponseSink) {
        donate(request, user: request.parameter("user"), event: request.parameter("event"), sink)
    }

    /// The same with the route's parameters given (`QuickRoute`), not read from the request.
    func donate(_ request: borrowing Request, user: String, event: String, _ sink: ResponseSink) {
        do throws(APIError) {
            try Self.checkUser(user)
            try Self.checkEvent(event)
            let body = try RequestBody.json(request, allowEmpty: true)
            guard case .object(let fields) = body else { throw APIError.invalidField("body", "the body must be a JSON object") }
            for key in fields.keys where !["at", "appVersion", "payload"].contains(key) {
                throw APIError.invalidField(key, "\(key) is not a field of a donation (at, appVersion, payload)")
            }
            let now = clock.now()
            let at = try Self.eventInstant(fields, now: now)
            let version = try appVersion(request, body: body)
            engine.donate(user: user, event: event, at: at, appVersion: version, now: now) { result in
                switch result {
                case .failure(let error):
                    sink.send(Self.writeError(error, donation: true).response)
                case .success(let outcome):
                    // The summary as the donation left it, read from the state it wrote. Carried out of the reducer
                    // as an effect, it was copied into an array each donation allocated, and destroyed with it: some
                    // 900 instructions and one allocation a donation (callgrind).
                    let summary = outcome.applied.state?.donations[event]
                    let body = DonationAnswer.encode(seq: outcome.seq, summary: summary, changes: outcome.changes, fired: outcome.fired)
                    sink.send(.json(.ok, body))
                }
            }
        } catch {
            sink.send(error.response)
        }
    }

    func donationSummary(_ request: Request) throws(APIError) -> HTTPResponse {
        let user = try user(request)
        let event = try event(request)
        guard let context = store.context(of: user) else { throw APIError.notFound("no user '\(user)'") }
        let summary =
            context.donations[event].map { ContextJSON.summary($0) }
            ?? ["count": 0, "first": .null, "last": .null, "recent": []]
        return .json(.ok, JSONWriter.write(["user": .string(user), "event": .string(event), "summary": summary]))
    }

    func resetDonations(_ request: Request, _ sink: ResponseSink) {
        do throws(APIError) {
            let user = try user(request)
            let event = try event(request)
            guard store.context(of: user) != nil else { throw APIError.notFound("no user '\(user)'") }
            commit(Mutation(user: user, now: clock.now(), actions: [.resetDonations(event: event)]), request: request, sink: sink)
        } catch {
            sink.send(error.response)
        }
    }

    /// `PATCH /v1/users/{u}/context`: a batch of ops applied all or nothing.
    func updateContext(_ request: Request, _ sink: ResponseSink) {
        do throws(APIError) {
            let user = try user(request)
            let now = clock.now()
            let body = try RequestBody.json(request)
            let actions = try APIError.naming { () throws(InvalidField) in try OperationDecoder.decode(body, now: now) }
            commit(Mutation(user: user, now: now, actions: actions), request: request, sink: sink)
        } catch {
            sink.send(error.response)
        }
    }

    func eraseUser(_ request: Request, _ sink: ResponseSink) {
        do throws(APIError) {
            let user = try user(request)
            guard store.context(of: user) != nil else { throw APIError.notFound("no user '\(user)'") }
            // Once erased, the answers kept for the user go too: nothing of the user stays in memory (README).
            let answers = answers
            commit(
                Mutation(user: user, now: clock.now(), actions: [.erase]), request: request, sink: sink, reportChanges: false,
                acknowledged: { answers.forget(user: user) })
        } catch {
            sink.send(error.response)
        }
    }

    /// Applies a mutation and answers `{seq, changed}` once it is acknowledged.
    /// `acknowledged` runs once the write is, before the answer goes out.
    func commit(
        _ mutation: Mutation, request: Request, sink: ResponseSink, reportChanges: Bool = true,
        acknowledged: (@Sendable () -> Void)? = nil
    ) {
        let version = try? appVersion(request)
        engine.update(mutation, appVersion: version ?? nil) { result in
            switch result {
            case .failure(let error):
                sink.send(Self.writeError(error).response)
            case .success(let outcome):
                acknowledged?()
                var body: JSONObject = ["seq": .int(Int(outcome.seq))]
                if reportChanges { body["changed"] = .array(outcome.changes.map(\.json)) }
                sink.send(.json(.ok, JSONWriter.write(.object(body))))
            }
        }
    }

    func readUser(_ request: Request) throws(APIError) -> HTTPResponse {
        let user = try user(request)
        guard let context = store.context(of: user) else { throw APIError.notFound("no user '\(user)'") }
        // As the context reads now: expired values are gone, pending expiries show under `expires`.
        return .json(.ok, JSONWriter.write(ContextJSON.encode(user: user, context.removingExpired(at: clock.now()))))
    }
}

extension API {
    /// When an event reported in a body happened: its `at` (ISO 8601), or `now` without one. Donations and display
    /// events read it alike.
    static func eventInstant(_ fields: JSONObject, now: Instant) throws(APIError) -> Instant {
        guard let value = fields["at"] else { return now }
        guard case .string(let text) = value, let parsed = ISO8601.parse(text) else {
            throw APIError.invalidField("at", "at must be an ISO 8601 date-time")
        }
        return parsed
    }
}
