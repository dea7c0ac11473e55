/// How the body of a request is delimited (RFC 9112 §6.3).
public enum BodyFraming: Sendable, Equatable {
    case none
    case length(Int)
    case chunked
}
