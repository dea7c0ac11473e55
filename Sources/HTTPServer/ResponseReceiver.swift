import HTTP

/// What a `ResponseSink` delivers to: the connection a request came in on. `request` tells which of its requests
/// the answer is for, so an answer that arrives after the connection moved on (it closed, or timed out the
/// request) is dropped rather than sent as the answer to another. Called from any thread.
public protocol ResponseReceiver: AnyObject, Sendable {
    func receive(_ response: HTTPResponse, request: Int)
    func openStream(headers: HTTPHeaders, request: Int) -> EventStream
}
