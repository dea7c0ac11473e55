/// Told the status of each response a sink sends and the seconds since the request was routed (a route's
/// metrics): a class, so a sink carries one reference, made once per route rather than once per request.
public protocol ResponseObserver: AnyObject, Sendable {
    func observe(status: Int, seconds: Double)
}
