import Engine
import HTTP
import HTTPServer
import Rules
import Store

/// The OpenFeature Remote Evaluation Protocol (docs/api.md, "OpenFeature (OFREP)"): any OpenFeature SDK can use specd
/// as its provider.
extension API {
    func registerOFREP(in router: inout Router) {
        router.add("POST", "/ofrep/v1/evaluate/flags/{key}", scope: .evaluate, sync: { request throws(APIError) in ofrepSingle(request) })
        router.add("POST", "/ofrep/v1/evaluate/flags", scope: .evaluate, sync: { request throws(APIError) in ofrepBulk(request) })
        router.add("POST", "/ofrep/v1/evaluate/flags/", scope: .evaluate, sync: { request throws(APIError) in ofrepBulk(request) })
        router.add("GET", "/ofrep/v1/events", scope: .evaluate) { request, sink in openRefetchStream(request, sink) }
        // OPTIONS without `Access-Control-Request-Method` (not a browser's preflight, which the router answers
        // before routing) still lists what a browser may send, as OFREP's routes always have.
        for path in ["/ofrep/v1/evaluate/flags/{key}", "/ofrep/v1/evaluate/flags", "/ofrep/v1/evaluate/flags/", "/ofrep/v1/events"] {
            router.add(
                "OPTIONS", path,
                sync: { _ throws(APIError) in
                    HTTPResponse(
                        status: .noContent,
                        headers: [
                            "Access-Control-Allow-Methods": "GET, POST, OPTIONS",
                            "Access-Control-Allow-Headers": CORSPolicy.allowedHeaders,
                            "Access-Control-Max-Age": CORSPolicy.maxAgeSeconds
                        ])
                })
        }
    }

    /// `POST /ofrep/v1/evaluate/flags`: every flag, each a success or error item; strong ETag over the body.
    func ofrepBulk(_ request: Request) -> HTTPResponse {
        let user: String
        let context: UserContext
        do {
            (user, context) = try ofrepContext(request)
        } catch {
            return .json(.badRequest, JSONWriter.write(["errorCode": "INVALID_CONTEXT", "errorDetails": .string(error.details)]))
        }
        let served = rules.served
        let evaluationInput = input(context, user: user, now: clock.now(), appVersion: request.header(.appVersion))
        var items: [JSONValue] = []
        for flag in served.rules.declaredFlags {
            let evaluation = flag.evaluate(evaluationInput)
            if let code = evaluation.errorCode {
                items.append([
                    "key": .string(flag.key), "errorCode": .string(code.rawValue),
                    "errorDetails": .string(evaluation.errorMessage ?? code.rawValue), "metadata": .object(flag.metadata)
                ])
            } else {
                let validUntil = flag.validUntil(evaluationInput, answered: evaluation)
                items.append(ofrepSuccess(evaluation, flag: flag, context: context, validUntil: validUntil))
            }
        }
        served.evaluations.countEach()
        var query = "targetingKey=" + (user.addingPercentEncodingForQuery())
        if user.isEmpty { query = "" }
        let body = JSONWriter.write([
            "flags": .array(items), "metadata": [:],
            "eventStreams": [["type": "sse", "endpoint": ["requestUri": .string("/ofrep/v1/events" + (query.isEmpty ? "" : "?" + query))]]]
        ])
        return ETag.respond(request, body: body, headers: ETag.flagAnswerCaching)
    }

    /// The OFREP event stream: notification only, `refetchEvaluation` whenever this subscriber's answers may
    /// have changed (a write to its user, a reload, the clock).
    func openRefetchStream(_ request: Request, _ sink: ResponseSink) {
        let user = request.query("targetingKey") ?? ""
        guard user.isEmpty || Identifier.isValid(user) else {
            sink.send(APIError.invalidField("targetingKey", "targetingKey must be 1-256 bytes of UTF-8 without control characters").response)
            return
        }
        guard hub.streamCount < hub.options.maxStreams else {
            sink.send(APIError.unavailable("too_many_streams", "the server has reached its stream limit", retryAfter: 5).response)
            return
        }
        // Before the values are read: a change published meanwhile is kept, and refetched (`StreamHub.subscribe`).
        let readAt = hub.beginFollowing(user)
        var values: [ByteKey: JSONValue] = [:]
        let ruleSet = rules.current
        let context = user.isEmpty ? UserContext() : store.context(of: user) ?? UserContext()
        for evaluation in ruleSet.evaluateAll(input(context, user: user, now: clock.now(), appVersion: nil)) {
            values[ByteKey(evaluation.key)] = evaluation.value ?? .null
        }
        guard let stream = sink.stream(headers: ["Content-Type": "text/event-stream", "Cache-Control": "no-cache", "X-Accel-Buffering": "no"]) else {
            sink.send(APIError(.internalServerError, code: "streaming_unsupported", message: "this connection cannot stream").response)
            return
        }
        // A HEAD request got its head and a closed stream: nothing to subscribe.
        guard !stream.isClosed else { return }
        // The empty user id names no user: such a stream hears reloads only.
        guard
            hub.subscribe(
                stream, user: user, flags: nil, types: nil, refetchOnly: true, lastEventID: nil, readAt: readAt,
                currentValues: values, resetState: { [:] })
        else {
            stream.close()
            return
        }
        if !user.isEmpty { engine.subscribed(user: user) }
    }

    /// Why an OFREP request's context was refused (`INVALID_CONTEXT`).
    struct OFREPContextError: Error {
        let details: String
    }

    /// The request's context: `targetingKey` is the user id; the stored user's context is merged under the
    /// request's attributes (the request wins). Undecodable JSON is an error, and so is a context past the per-user
    /// caps on attributes (their number, name and value sizes): one request must not build a context no user could
    /// have. Building it is linear in the body.
    func ofrepContext(_ request: Request) throws(OFREPContextError) -> (user: String, context: UserContext) {
        let malformed = OFREPContextError(details: "the body is not a JSON object with an object 'context'")
        var user = ""
        var attributes: [(String, JSONValue)] = []
        var targetingKey: JSONValue?
        if !request.body.isEmpty {
            guard let body = try? JSONParser().parse(request.body), case .object(let root) = body else { throw malformed }
            if let context = root["context"] {
                guard case .object(let object) = context else { throw malformed }
                let limits = store.limits
                attributes.reserveCapacity(object.count)
                for (name, value) in object {
                    // The targeting key names the user and also stays in the context as sent (flagd's targeting
                    // reads it with `var`, an empty one included); it is not one of the capped attributes.
                    if name == "targetingKey" {
                        if case .string(let key) = value { user = key }
                        targetingKey = value
                        continue
                    }
                    if name.utf8.count > limits.maxKeyBytes {
                        throw OFREPContextError(details: "context.\(name): " + ContextLimits.describe(.keyBytes, limits.maxKeyBytes))
                    }
                    if limits.maxAttributeValueBytes < .max, JSONWriter.write(value).count > limits.maxAttributeValueBytes {
                        throw OFREPContextError(
                            details: "context.\(name): " + ContextLimits.describe(.attributeValueBytes, limits.maxAttributeValueBytes))
                    }
                    attributes.append((name, value))
                }
                if attributes.count > limits.maxAttributes {
                    throw OFREPContextError(details: "context: " + ContextLimits.describe(.attributes, limits.maxAttributes))
                }
            }
        }
        var context = (Identifier.isValid(user) ? store.context(of: user) : nil) ?? UserContext()
        for (name, value) in attributes { context.attributes[name] = value }
        if let targetingKey { context.attributes["targetingKey"] = targetingKey }
        return (user, context)
    }

    func ofrepError(_ status: HTTPStatus, key: String, code: String, details: String) -> HTTPResponse {
        .json(status, JSONWriter.write(["key": .string(key), "errorCode": .string(code), "errorDetails": .string(details), "metadata": [:]]))
    }

    func ofrepSingle(_ request: Request) -> HTTPResponse {
        let key = request.parameter("key")
        let user: String
        let context: UserContext
        do {
            (user, context) = try ofrepContext(request)
        } catch {
            return ofrepError(.badRequest, key: key, code: "INVALID_CONTEXT", details: error.details)
        }
        let served = rules.served
        guard let flag = served.rules.flags[key] else {
            return ofrepError(.notFound, key: key, code: "FLAG_NOT_FOUND", details: "flag '\(key)' is not defined")
        }
        let evaluationInput = input(context, user: user, now: clock.now(), appVersion: request.header(.appVersion))
        let evaluation = flag.evaluate(evaluationInput)
        served.evaluations.count(flag.position)
        if let code = evaluation.errorCode {
            return ofrepError(.badRequest, key: key, code: code.rawValue, details: evaluation.errorMessage ?? code.rawValue)
        }
        let validUntil = flag.validUntil(evaluationInput, answered: evaluation)
        let body = JSONWriter.write(ofrepSuccess(evaluation, flag: flag, context: context, validUntil: validUntil))
        return ETag.respond(request, body: body, headers: ETag.flagAnswerCaching)
    }

    /// `{key, reason, variant, value?, metadata}`: no `value` when nothing was decided (disabled, no default), so
    /// the caller's code default applies. `variant` is always present (SDKs such as the Python OFREP provider
    /// require the key): the variant name, a name for native flags' answers, the default variant of a disabled
    /// flag, or null. `validUntil` goes into `metadata` (OFREP has no member of its own for it), over a flag
    /// metadata key of that name.
    func ofrepSuccess(_ evaluation: Evaluation, flag: Flag, context: UserContext = UserContext(), validUntil: Instant? = nil) -> JSONValue {
        var body: JSONObject = ["key": .string(evaluation.key), "reason": .string(evaluation.reason.rawValue)]
        if let value = evaluation.value {
            body["variant"] = .string(evaluation.variant ?? Self.nativeVariantName(evaluation, value: value))
            body["value"] = value
        } else if case .flagd(let flagd) = flag.body, let name = flagd.defaultVariant {
            body["variant"] = .string(name)
        } else {
            body["variant"] = .null
        }
        var metadata = flag.metadata
        if let validUntil { metadata["validUntil"] = .string(ISO8601.format(validUntil)) }
        body["metadata"] = .object(metadata)
        if evaluation.reason == .invalidated { ofrepInvalidated(&body, flag: flag, context: context) }
        return .object(body)
    }

    /// Native specd answers have no variant names: booleans are named by their value, decisions by the case.
    static func nativeVariantName(_ evaluation: Evaluation, value: JSONValue) -> String {
        if case .bool(let flag) = value, evaluation.index == nil { return flag ? "true" : "false" }
        if let index = evaluation.index { return evaluation.reason == .targetingMatch || evaluation.reason == .split ? "case-\(index)" : "fallback" }
        return JSONWriter.string(value)
    }
}
