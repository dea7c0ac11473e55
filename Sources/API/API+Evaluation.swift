import Engine
import HTTP
import HTTPServer
import Rules
import Store

extension API {
    func registerEvaluation(in router: inout Router) {
        router.add("GET", "/v1/users/{user}/flags", scope: .evaluate, sync: { request throws(APIError) in try allFlags(request) })
        router.add("GET", "/v1/users/{user}/flags/{key}", scope: .evaluate, sync: { request throws(APIError) in try oneFlag(request) })
        // The read apps poll is matched before the others (`QuickRoute`), its parameters handed over as decoded.
        router.answerFirst(
            "GET", "/v1/users/{user}/flags/{key}",
            sync: { request, parameters throws(APIError) in try oneFlag(request, user: parameters.0, key: parameters.1) })
        router.add("POST", "/v1/evaluate", scope: .evaluate, sync: { request throws(APIError) in try evaluateInline(request) })
    }

    /// Every flag for a stored user (an unknown user is an empty context, and is not created). The strong ETag is
    /// a hash of the body, so it changes exactly when the answer does; each flag carries its `validUntil`.
    func allFlags(_ request: Request) throws(APIError) -> HTTPResponse {
        let user = try user(request)
        let version = try appVersion(request)
        let now = try evaluationInstant(request)
        let served = rules.served
        let context = store.context(of: user) ?? UserContext()
        let evaluationInput = input(context, user: user, now: now, appVersion: version)
        // `{"flags": {key: {the evaluation's members, "validUntil"?}}}` written as bytes, no object built.
        let flags = served.rules.declaredFlags
        var body: [UInt8] = []
        body.reserveCapacity(16 + 112 * flags.count)
        JSONWriter.append(#"{"flags":{"#, into: &body)
        for (index, flag) in flags.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            let evaluation = flag.evaluate(evaluationInput)
            JSONWriter.writeString(flag.key, into: &body)
            JSONWriter.append(#":{"#, into: &body)
            evaluation.writeJSONMembers(into: &body)
            Self.writeValidUntil(flag.validUntil(evaluationInput, answered: evaluation), into: &body)
            body.append(UInt8(ascii: "}"))
        }
        JSONWriter.append("}}", into: &body)
        served.evaluations.countEach()
        return ETag.respond(request, body: body, headers: ETag.flagAnswerCaching)
    }

    func oneFlag(_ request: Request) throws(APIError) -> HTTPResponse {
        try oneFlag(request, user: request.parameter("user"), key: request.parameter("key"))
    }

    /// The same with the route's parameters given (`QuickRoute`), not read from the request.
    func oneFlag(_ request: borrowing Request, user: String, key: String) throws(APIError) -> HTTPResponse {
        // The set lent, not taken: taken, it was the host's lock and three retains and releases a read.
        try rules.withServed { served throws(APIError) in try oneFlag(request, user: user, key: key, served: served) }
    }

    private func oneFlag(_ request: borrowing Request, user: String, key: String, served: RulesHost.Served) throws(APIError) -> HTTPResponse {
        // The user id is checked where the answer cache cannot answer: a kept answer's key holds the same bytes as
        // the read that kept it, which passed this check, and the check is a pure function of those bytes (some
        // 150 instructions a cached read). Every error still comes in the order it did: a bad id first.
        let version: String?
        let now: Instant
        do throws(APIError) {
            version = try appVersion(request)
            now = try evaluationInstant(request)
        } catch {
            try Self.checkUser(user)
            // An unknown flag is answered 404 before a malformed version or instant, as when the flag was looked up
            // first.
            if served.rules.flags[key] == nil { throw Self.flagNotFound(key) }
            throw error
        }
        let store = store
        // Read before the context: an answer kept (or found to hold) with this count was computed from (or checked
        // against) a context no older than the count says.
        let changes = store.contextChanges(of: user)
        // What-if (`?at=`) and explained answers are computed every time; so are flags with unknown inputs (flagd
        // definitions, and flags reaching one through a prerequisite), whose answer the clock may change without
        // a `validUntil` (`AnswerCache`): those are never kept, so never found.
        let explain = request.query("explain").map { $0 == "1" || $0 == "true" } ?? false
        let cacheKey = request.query("at") == nil && !explain ? AnswerCache.Key(user: user, flag: key, appVersion: version) : nil
        // Asked before the flag is looked up: an answer kept for this very rule set says the flag is in it, and
        // where (some 400 instructions of hashing the key a read the cache answers).
        let ifNoneMatch = request.header(.ifNoneMatch)
        let revalidating = ifNoneMatch != nil
        // While nothing in the user's part of the store changed since the answer was kept or last checked, the
        // count alone says it holds: the context's lookup (a hashed probe under the shard's lock, and a touch of
        // the context itself, a cache miss per read with ten thousand users) is skipped.
        var mayHold = cacheKey != nil
        if let cacheKey, let changes {
            switch answers.answer(for: cacheKey, served: served, changes: changes, now: now, revalidating: revalidating) {
            case .hit(let hit): return response(to: hit, for: cacheKey, served: served, ifNoneMatch: ifNoneMatch)
            case .checkContext: break
            case .none: mayHold = false
            }
        }
        let stored = store.context(of: user)
        if mayHold, let cacheKey,
            let hit = answers.answer(
                for: cacheKey, served: served, context: stored, now: now, revalidating: revalidating, changes: changes)
        {
            return response(to: hit, for: cacheKey, served: served, ifNoneMatch: ifNoneMatch)
        }
        try Self.checkUser(user)
        guard let flag = served.rules.flags[key] else { throw Self.flagNotFound(key) }
        let keeps = cacheKey != nil && !served.rules.readsUnknownInputs(flag)
        // Counted as the cache was asked: a flag it never keeps is no miss.
        if keeps { answers.countMiss() }
        let evaluationInput = input(stored ?? UserContext(), user: user, now: now, appVersion: version)
        let evaluation = flag.evaluate(evaluationInput)
        served.evaluations.count(flag.position)
        // `{"key", the evaluation's members, "validUntil"?, "metadata"?, "explain"?}` written as bytes, no object built.
        var body: [UInt8] = []
        body.reserveCapacity(192)
        JSONWriter.append(#"{"key":"#, into: &body)
        JSONWriter.writeString(key, into: &body)
        body.append(UInt8(ascii: ","))
        evaluation.writeJSONMembers(into: &body)
        let validUntil = flag.validUntil(evaluationInput, answered: evaluation)
        Self.writeValidUntil(validUntil, into: &body)
        if !flag.metadata.isEmpty {
            JSONWriter.append(#","metadata":"#, into: &body)
            body.append(contentsOf: flag.metadataJSON)
        }
        if explain {
            JSONWriter.append(#","explain":"#, into: &body)
            JSONWriter.write(flag.explain(evaluationInput), into: &body)
        }
        body.append(UInt8(ascii: "}"))
        let tagged = ETag.Tagged(body: body, etag: ETag.strongHash(body), headers: ETag.flagAnswerCaching)
        if keeps, let cacheKey {
            answers.keep(
                tagged, flagPosition: flag.position, for: cacheKey, served: served, context: stored, computedAt: now,
                validUntil: validUntil, changes: changes)
        }
        return ETag.respond(ifNoneMatch: ifNoneMatch, tagged)
    }

    /// A kept answer's response, its flag's evaluation counted.
    private func response(to hit: AnswerCache.Hit, for cacheKey: AnswerCache.Key, served: RulesHost.Served, ifNoneMatch: String?) -> HTTPResponse {
        served.evaluations.count(hit.flagPosition)
        switch hit.kept {
        case .ok(let prepared):
            return HTTPResponse(status: .ok, preparedWithBody: prepared)
        case .answer(let answer):
            // Read again, and not prepared yet: prepared now, for this read and the next ones.
            if ifNoneMatch == nil, !answer.isPrepared {
                return HTTPResponse(status: .ok, preparedWithBody: answers.prepare(answer, for: cacheKey))
            }
            return ETag.respond(ifNoneMatch: ifNoneMatch, answer)
        }
    }

    static func flagNotFound(_ key: String) -> APIError {
        APIError(.notFound, code: "flag_not_found", message: "no flag named '\(key)'", field: "key")
    }

    /// `,"validUntil":"<ISO 8601>"`, the instant the answer next changes by the clock alone (docs/api.md,
    /// "validUntil"); nothing when no such instant is known.
    static func writeValidUntil(_ instant: Instant?, into body: inout [UInt8]) {
        guard let instant else { return }
        JSONWriter.append(#","validUntil":""#, into: &body)
        ISO8601.write(instant, into: &body)
        body.append(UInt8(ascii: "\""))
    }

    /// `?at=ISO` on a stored user's flags: what-if, the stored context evaluated at another instant (nothing is
    /// stored, nothing is scheduled). Absent: now.
    func evaluationInstant(_ request: Request) throws(APIError) -> Instant {
        guard let text = request.query("at") else { return clock.now() }
        guard let instant = ISO8601.parse(text) else {
            throw APIError.invalidField("at", "at must be an ISO 8601 date-time such as 2026-03-10T12:00:00Z")
        }
        return instant
    }

    /// `POST /v1/evaluate`: an inline context, evaluated at `at` (default now); nothing is stored. With a top-level
    /// `user`, that user's stored context lies under the inline one (the request wins, key by key), as OFREP does.
    func evaluateInline(_ request: Request) throws(APIError) -> HTTPResponse {
        let body = try RequestBody.json(request)
        guard case .object(let fields) = body else { throw APIError.invalidField("body", "the body must be a JSON object") }
        for key in fields.keys where !["context", "flags", "at", "appVersion", "user"].contains(key) {
            throw APIError.invalidField(key, "\(key) is not a field of an evaluation request (context, flags, at, appVersion, user)")
        }
        var context: UserContext
        do {
            // Held to the per-user caps: an inline context is one user's context, and no bigger.
            context = try ContextJSON.decode(fields["context"] ?? [:], limits: store.limits)
        } catch {
            if error.isLimit { throw APIError(.unprocessableContent, code: "limit_exceeded", message: error.message, field: error.field) }
            throw APIError.invalidField(error.field, error.message)
        }
        var now = clock.now()
        if let value = fields["at"] {
            guard case .string(let text) = value, let at = ISO8601.parse(text) else {
                throw APIError.invalidField("at", "at must be an ISO 8601 date-time")
            }
            now = at
        }
        var user = ""
        if let value = fields["user"] ?? fields["context"]?["user"] {
            guard case .string(let text) = value, Identifier.isValid(text) else {
                throw APIError.invalidField("user", "user must be a user id: 1–256 bytes of UTF-8 without control characters")
            }
            user = text
            // Only a top-level `user` asks for the stored context; `context.user` names the bucketing id alone.
            if fields["user"] != nil, let stored = store.context(of: text) { context = stored.overlaid(by: context) }
        }
        let served = rules.served
        let ruleSet = served.rules
        var keys = ruleSet.flagKeys
        if let value = fields["flags"] {
            guard case .array(let items) = value, items.allSatisfy({ $0.stringValue != nil }) else {
                throw APIError.invalidField("flags", "flags must be an array of flag keys")
            }
            keys = items.compactMap(\.stringValue)
        }
        let version = try appVersion(request, body: body)
        let evaluationInput = input(context, user: user, now: now, appVersion: version ?? (fields["context"]?["appVersion"]?.stringValue))
        let explain = request.query("explain") == "1"
        var results = JSONObject()
        for key in keys {
            guard let flag = ruleSet.flags[key] else {
                results[key] = Evaluation.notFound(key).json
                continue
            }
            let evaluation = flag.evaluate(evaluationInput)
            served.evaluations.count(flag.position)
            var result = evaluation.json
            if case .object(var fields) = result {
                if let until = flag.validUntil(evaluationInput, answered: evaluation) { fields["validUntil"] = .string(ISO8601.format(until)) }
                if explain { fields["explain"] = flag.explain(evaluationInput) }
                result = .object(fields)
            }
            results[key] = result
        }
        return .json(.ok, JSONWriter.write(["flags": .object(results), "at": .string(ISO8601.format(now))]))
    }
}
