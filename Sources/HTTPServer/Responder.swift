/// Anything that answers requests: the router, or a test double.
public protocol Responder: Sendable {
    func respond(to request: Request, sink: ResponseSink)
}
