import HTTP

/// Answers 503 to everything: what a server serves before `start(serving:)` names its responder.
struct NoResponder: Responder {
    func respond(to request: consuming Request, sink: consuming ResponseSink) {
        sink.send(ErrorResponse.response(.serviceUnavailable, code: "starting", message: "specd is starting", retryable: true))
    }
}
