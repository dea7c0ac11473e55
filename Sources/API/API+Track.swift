import Engine
import HTTP
import HTTPServer
import Rules
import Store

/// `POST /ofrep/v1/track`, a specd extension to OFREP (docs/api.md, "Tracking"): OpenFeature's
/// `track(name, context, details)` becomes a donation of `name` for the context's `targetingKey`, through the
/// engine's one write path, so tracking closes the loop: track → donation → re-evaluation → SSE `flag` events and
/// OFREP `refetchEvaluation` notifications.
extension API {
    func registerTracking(in router: inout Router) {
        router.add("POST", "/ofrep/v1/track", scope: .write) { request, sink in track(request, sink) }
        // CORS preflights carry no credentials: answered without auth, like the other OFREP routes.
        router.add(
            "OPTIONS", "/ofrep/v1/track",
            sync: { _ throws(APIError) in
                HTTPResponse(
                    status: .noContent,
                    headers: [
                        "Access-Control-Allow-Methods": "POST, OPTIONS", "Access-Control-Allow-Headers": CORSPolicy.allowedHeaders,
                        "Access-Control-Max-Age": CORSPolicy.maxAgeSeconds
                    ])
            })
    }

    /// What a track call asks for, read from its body.
    struct TrackCall {
        let user: String
        let event: String
    }

    /// `{"context": {"targetingKey": "u", ...}, "trackingEventName": "e", "trackingEventDetails": {"value"?: number,
    /// ...}}`. The other context attributes are not written (a track is a donation, not a context update), and the
    /// details are checked but not stored: a donation keeps its instant and app version, no payload.
    static func trackCall(_ body: JSONValue) throws(APIError) -> TrackCall {
        guard case .object(let fields) = body else { throw APIError.invalidField("body", "the body must be a JSON object") }
        guard let context = fields["context"], case .object(let attributes) = context else {
            throw APIError.invalidField("context", "context must be an object holding the targetingKey")
        }
        guard let key = attributes["targetingKey"] else {
            throw APIError.invalidField("context.targetingKey", "context.targetingKey is required: it names the user who tracked the event")
        }
        guard case .string(let user) = key, Identifier.isValid(user) else {
            throw APIError.invalidField(
                "context.targetingKey", "context.targetingKey must be a user id: 1-256 bytes of UTF-8 without control characters")
        }
        guard let name = fields["trackingEventName"] else {
            throw APIError.invalidField("trackingEventName", "trackingEventName is required: it names the event donated")
        }
        guard case .string(let event) = name, Identifier.isValidKey(event) else {
            throw APIError.invalidField("trackingEventName", "trackingEventName must be a non-empty string without control characters")
        }
        if let details = fields["trackingEventDetails"] {
            guard case .object(let members) = details else {
                throw APIError.invalidField("trackingEventDetails", "trackingEventDetails must be an object")
            }
            if let value = members["value"] {
                guard case .number = value else {
                    throw APIError.invalidField("trackingEventDetails.value", "trackingEventDetails.value must be a number")
                }
            }
        }
        return TrackCall(user: user, event: event)
    }

    /// Answers 202 `{"seq"}` once the donation is durable: accepted as a donation, whatever its flags did.
    func track(_ request: Request, _ sink: ResponseSink) {
        do throws(APIError) {
            let call = try Self.trackCall(try RequestBody.json(request))
            let version = try appVersion(request)
            let now = clock.now()
            let metrics = metrics
            engine.donate(user: call.user, event: call.event, at: now, appVersion: version, now: now) { result in
                switch result {
                case .failure(let error):
                    sink.send(Self.trackError(error).response)
                case .success(let outcome):
                    metrics.increment("track_events_total")
                    sink.send(.json(.accepted, JSONWriter.write(["seq": .int(Int(outcome.seq))])))
                }
            }
        } catch {
            sink.send(error.response)
        }
    }

    /// A refused donation names the track call's own field: the event name is `trackingEventName` here.
    static func trackError(_ error: StoreError) -> APIError {
        guard case .rejected(let refusal) = error else { return Self.storeError(error) }
        return APIError(
            .unprocessableContent, code: refusal.code, message: "trackingEventName: \(refusal.message)", field: "trackingEventName")
    }
}
