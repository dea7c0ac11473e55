import HTTP
import Rules
import Store

extension API {
    func registerUsers(in router: inout Router) {
        router.add("POST", "/v1/users/{user}/events/{event}", scope: .write) { request, sink in donate(request, sink) }
        router.add("GET", "/v1/users/{user}/events/{event}", scope: .evaluate, sync: { request throws(APIError) in try donationSummary(request) })
        router.add("DELETE", "/v1/users/{user}/events/{event}", scope: .write) { request, sink in resetDonations(request, sink) }
        router.add("PATCH", "/v1/users/{user}/context", scope: .write) { request, sink in updateContext(request, sink) }
        router.add("GET", "/v1/users/{user}", scope: .evaluate, sync: { request throws(APIError) in try readUser(request) })
        router.add("DELETE", "/v1/users/{user}", scope: .admin) { request, sink in eraseUser(request, sink) }
    }

    /// The event name from the path. Its length limit (`limits.maxKeyBytes`) is the store's to enforce.
    func event(_ request: Request) throws(APIError) -> String {
        let event = request.parameter("event")
        guard Identifier.isValidKey(event) else { throw APIError.invalidField("event", "the event name must be non-empty UTF-8 without control characters") }
        return event
    }

    /// A refused write: a reducer refusal is 422 with its own code (`overflow`, `limit_exceeded`,
    /// `invalid_operation`) and names the field at fault, `ops[i]…` for a context update or `event` for a donation.
    func writeError(_ error: StoreError, donation: Bool = false) -> APIError {
        guard case .rejected(let refusal) = error else { return storeError(error) }
        let field = donation ? "event" : refusal.field
        return APIError(.unprocessableContent, code: refusal.code, message: "\(field): \(refusal.message)", field: field)
    }

    /// `POST /v1/users/{u}/events/{e}`: count, first/last, history, `events[e]`, then immediate triggers, in one
    /// logged step; answered once durable with the new summary, the flags that changed and what fired.
    func donate(_ request: Request, _ sink: ResponseSink) {
        do throws(APIError) {
            let user = try user(request)
            let event = try event(request)
            let body = try RequestBody.json(request, allowEmpty: true)
            guard case .object(let fields) = body else { throw APIError.invalidField("body", "the body must be a JSON object") }
            for key in fields.keys where !["at", "appVersion", "payload"].contains(key) {
                throw APIError.invalidField(key, "\(key) is not a field of a donation (at, appVersion, payload)")
            }
            let now = clock.now()
            var at = now
            if let value = fields["at"] {
                guard case .string(let text) = value, let parsed = ISO8601.parse(text) else {
                    throw APIError.invalidField("at", "at must be an ISO 8601 date-time")
                }
                at = parsed
            }
            let version = try appVersion(request, body: body)
            let ruleSet = rules.current
            let attributes = RequestAttributes(userID: user, appVersion: version)
            let mutation = Mutation(user: user, now: now, actions: [.donate(event: event, at: at, appVersion: version)])
            let followUp = { (previous: UserContext?, current: UserContext?) -> [Action] in
                guard let current else { return [] }
                return ruleSet.immediateFires(event: event, previous: previous, current: current, now: now, request: attributes)
                    .map { Action.recordTriggerFire(trigger: $0.key, at: now) }
            }
            database.write(mutation, followUp: followUp) { result in
                switch result {
                case .failure(let error):
                    sink.send(writeError(error, donation: true).response)
                case .success(let applied):
                    metrics.increment("donations_total")
                    var summary = JSONValue.null
                    var fired: [JSONValue] = []
                    for effect in applied.effects {
                        if case .donated(let name, let donation) = effect, name == event { summary = ContextJSON.summary(donation, includeRecent: false) }
                        if case .triggerFired(let trigger, let firedAt) = effect {
                            fired.append(["trigger": .string(trigger), "at": .string(ISO8601.format(firedAt))])
                            metrics.increment("trigger_fires_total")
                        }
                    }
                    let changes = flagChanges(ruleSet, user: user, before: applied.previous, after: applied.state, now: now, appVersion: version)
                    live?.written(user: user, applied: applied, changes: changes, appVersion: version, event: event, now: now)
                    let body: JSONValue = ["seq": .int(Int(applied.seq)), "event": summary, "changed": .array(changes.map(\.json)), "fired": .array(fired)]
                    sink.send(.json(.ok, JSONWriter.write(body)))
                }
            }
        } catch {
            sink.send(error.response)
        }
    }

    func donationSummary(_ request: Request) throws(APIError) -> HTTPResponse {
        let user = try user(request)
        let event = try event(request)
        guard let context = database.store.context(of: user) else { throw APIError.notFound("no user '\(user)'") }
        let summary = context.donations[event].map { ContextJSON.summary($0) }
            ?? ["count": 0, "first": .null, "last": .null, "recent": []]
        return .json(.ok, JSONWriter.write(["user": .string(user), "event": .string(event), "summary": summary]))
    }

    func resetDonations(_ request: Request, _ sink: ResponseSink) {
        do throws(APIError) {
            let user = try user(request)
            let event = try event(request)
            guard database.store.context(of: user) != nil else { throw APIError.notFound("no user '\(user)'") }
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
            let actions = try OperationDecoder.decode(try RequestBody.json(request), now: now)
            commit(Mutation(user: user, now: now, actions: actions), request: request, sink: sink)
        } catch {
            sink.send(error.response)
        }
    }

    func eraseUser(_ request: Request, _ sink: ResponseSink) {
        do throws(APIError) {
            let user = try user(request)
            guard database.store.context(of: user) != nil else { throw APIError.notFound("no user '\(user)'") }
            commit(Mutation(user: user, now: clock.now(), actions: [.erase]), request: request, sink: sink, reportChanges: false)
        } catch {
            sink.send(error.response)
        }
    }

    /// Applies a mutation and answers `{seq, changed}` once it is acknowledged.
    func commit(_ mutation: Mutation, request: Request, sink: ResponseSink, reportChanges: Bool = true) {
        let ruleSet = rules.current
        let version = try? appVersion(request)
        database.write(mutation) { result in
            switch result {
            case .failure(let error):
                sink.send(writeError(error).response)
            case .success(let applied):
                metrics.increment("context_writes_total")
                let changes = flagChanges(ruleSet, user: mutation.user, before: applied.previous, after: applied.state,
                                          now: mutation.now, appVersion: version ?? nil)
                live?.written(user: mutation.user, applied: applied, changes: changes, appVersion: version ?? nil, event: nil, now: mutation.now)
                var body: JSONObject = ["seq": .int(Int(applied.seq))]
                if reportChanges { body["changed"] = .array(changes.map(\.json)) }
                sink.send(.json(.ok, JSONWriter.write(.object(body))))
            }
        }
    }

    func readUser(_ request: Request) throws(APIError) -> HTTPResponse {
        let user = try user(request)
        guard let context = database.store.context(of: user) else { throw APIError.notFound("no user '\(user)'") }
        return .json(.ok, JSONWriter.write(ContextJSON.encode(user: user, context)))
    }
}
