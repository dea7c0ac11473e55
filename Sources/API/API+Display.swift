import Engine
import HTTP
import HTTPServer
import Rules
import Store

/// `POST /v1/users/{u}/flags/{key}/display` (docs/api.md, "Display events"): what the user saw of a display flag.
extension API {
    func registerDisplay(in router: inout Router) {
        router.add("POST", "/v1/users/{user}/flags/{key}/display", scope: .write) { request, sink in display(request, sink) }
    }

    static let displayFields = ["event", "at", "appVersion"]

    /// Checks the path, the flag and the body, then writes through the engine; answers once durable with the flag's
    /// new answer, its display state and the flags the event changed.
    func display(_ request: Request, _ sink: ResponseSink) {
        do throws(APIError) {
            let user = try user(request)
            let key = request.parameter("key")
            guard let flag = rules.current.flags[key] else {
                throw APIError(.notFound, code: "flag_not_found", message: "no flag named '\(key)'", field: "key")
            }
            guard flag.display != nil else {
                throw APIError(
                    .unprocessableContent, code: "not_a_display_flag",
                    message: "flag '\(key)' has no 'display' in its definition: only display flags keep display state", field: "key")
            }
            let body = try RequestBody.json(request)
            guard case .object(let fields) = body else { throw APIError.invalidField("body", "the body must be a JSON object") }
            for name in fields.keys where !Self.displayFields.contains(name) {
                throw APIError.invalidField(name, "\(name) is not a field of a display event (event, at, appVersion)")
            }
            guard let text = fields["event"]?.stringValue, let event = DisplayState.Event(rawValue: text) else {
                throw APIError.invalidField("event", "event must be \"shown\", \"dismissed\" or \"actionPerformed\"")
            }
            let now = clock.now()
            let at = try Self.eventInstant(fields, now: now)
            let version = try appVersion(request, body: body)
            let engine = self.engine
            do {
                try engine.display(user: user, flag: key, event: event, at: at, now: now, appVersion: version) { result in
                    switch result {
                    case .failure(let error):
                        sink.send(Self.writeError(error).response)
                    case .success(let outcome):
                        let state = outcome.applied.state ?? UserContext()
                        let evaluation = flag.evaluate(engine.input(state, user: user, now: now, appVersion: version))
                        let answer = DisplayAnswer.encode(
                            seq: outcome.seq, evaluation: evaluation, state: state.display[key] ?? DisplayState(), changes: outcome.changes)
                        sink.send(.json(.ok, answer))
                    }
                }
            } catch {
                // The rules were swapped between the check above and the write.
                switch error {
                case .unknownFlag: throw APIError(.notFound, code: "flag_not_found", message: "no flag named '\(key)'", field: "key")
                case .notDisplayed:
                    throw APIError(.unprocessableContent, code: "not_a_display_flag", message: "flag '\(key)' has no 'display'", field: "key")
                }
            }
        } catch {
            sink.send(error.response)
        }
    }
}
