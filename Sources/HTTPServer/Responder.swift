/// Anything that answers requests: the router, or a test double.
public protocol Responder: Sendable {
    /// `consuming`: the connection hands over its only copy, so a responder that changes it (the router sets the
    /// route's parameters) changes it in place.
    func respond(to request: consuming Request, sink: ResponseSink)
}
