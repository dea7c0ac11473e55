import Engine
import HTTP
import HTTPServer
import Rules
import Store

extension API {
    func registerStreams(in router: inout Router) {
        router.add("GET", "/v1/users/{user}/stream", scope: .evaluate) { request, sink in openStream(request, sink, global: false) }
        router.add("GET", "/v1/stream", scope: .admin) { request, sink in openStream(request, sink, global: true) }
    }

    /// `GET /v1/users/{u}/stream` and `GET /v1/stream` (docs/api.md, "Streams"): `?flags=a,b` and
    /// `?events=flag,trigger` filter; `Last-Event-ID` resumes.
    /// The response header naming the id a stream opened without `Last-Event-ID` starts after.
    public static let streamStartHeader = "X-Specd-Stream-Start"

    func openStream(_ request: Request, _ sink: ResponseSink, global: Bool) {
        do throws(APIError) {
            let user = global ? nil : try self.user(request)
            let flags = request.query("flags").map { Set($0.split(separator: ",").map { ByteKey(String($0)) }) }
            let types = request.query("events").map { Set($0.split(separator: ",").map(String.init)) }
            if let types {
                for type in types where !["flag", "trigger", "rules", "reset", "context"].contains(type) {
                    throw APIError.invalidField("events", "events lists flag, trigger, rules, reset or context, not '\(type)'")
                }
            }
            let include = request.query("include")
            guard include == nil || include == "context" else { throw APIError.invalidField("include", "include may only be 'context'") }
            var lastEventID: EventID?
            if let text = request.header(.lastEventID) ?? request.query("lastEventId") {
                guard let parsed = EventID(text: text) else {
                    throw APIError.invalidField("Last-Event-ID", "Last-Event-ID must be an id this server sent")
                }
                lastEventID = parsed
            }
            guard hub.streamCount < hub.options.maxStreams else {
                throw APIError.unavailable("too_many_streams", "the server has reached its stream limit", retryAfter: 5)
            }
            let version = try appVersion(request)
            // Before the values are read: what is published meanwhile is kept, and follows them.
            let readAt = hub.beginFollowing(user)
            let ruleSet = rules.current
            var values: [ByteKey: JSONValue] = [:]
            var evaluations = JSONObject()
            if let user {
                let context = store.context(of: user) ?? UserContext()
                for evaluation in ruleSet.evaluateAll(input(context, user: user, now: clock.now(), appVersion: version)) {
                    values[ByteKey(evaluation.key)] = evaluation.value ?? .null
                    evaluations[evaluation.key] = evaluation.json
                }
            }
            var headers: HTTPHeaders = ["Content-Type": "text/event-stream", "Cache-Control": "no-cache", "X-Accel-Buffering": "no"]
            // Where a stream that resumes nothing starts: every event after this id comes on it, so a client that
            // reconnects with it misses none, whether this stream sent it an event or not (the cluster's merged
            // stream keeps it for each member it has heard nothing from yet).
            if lastEventID == nil { headers.add(Self.streamStartHeader, readAt.description) }
            guard let stream = sink.stream(headers: headers)
            else {
                throw APIError(.internalServerError, code: "streaming_unsupported", message: "this connection cannot stream")
            }
            // A HEAD request got its head and a closed stream: nothing to subscribe.
            guard !stream.isClosed else { return }
            let reset: JSONValue =
                user.map { ["user": .string($0), "flags": .object(evaluations), "version": .string(ruleSet.version)] }
                ?? ["version": .string(ruleSet.version)]
            guard
                hub.subscribe(
                    stream, user: user, flags: flags, types: types, includeContext: include == "context", appVersion: version,
                    lastEventID: lastEventID, readAt: readAt,
                    currentValues: values, resetState: { reset })
            else {
                stream.send(SSEEncoder.encode(.heartbeat("stream limit reached")))
                stream.close()
                return
            }
            metrics.increment("streams_opened_total")
            if let user { engine.subscribed(user: user) }
        } catch {
            sink.send(error.response)
        }
    }
}
