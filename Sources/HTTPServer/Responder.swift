/// Anything that answers requests: the router, or a test double.
public protocol Responder: Sendable {
    /// `consuming`: the connection hands over its only copies, so a responder that changes one (the router sets the
    /// route's parameters on the request, its metrics on the sink) changes it in place.
    func respond(to request: consuming Request, sink: consuming ResponseSink)
}
