/// Told the status of each response a sink sends and the seconds since the request was routed (a route's
/// metrics). Made once per route rather than once per request; a final class, so a sink carries and copies one
/// reference (an existential of a protocol cost some 120 instructions a copy, and a request's sink is copied
/// several times).
public final class ResponseObserver: Sendable {
    private let body: @Sendable (_ status: Int, _ seconds: Double) -> Void

    /// Observes nothing: what a sink holds before a route sets its own.
    static let none = ResponseObserver { _, _ in }

    public init(_ body: @escaping @Sendable (_ status: Int, _ seconds: Double) -> Void) {
        self.body = body
    }

    func observe(status: Int, seconds: Double) {
        body(status, seconds)
    }
}
