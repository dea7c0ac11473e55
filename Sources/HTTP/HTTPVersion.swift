/// The protocol version of a request; specd speaks HTTP/1.0 and HTTP/1.1 only.
public enum HTTPVersion: Sendable, Equatable {
    case http10
    case http11

    public var text: String { self == .http10 ? "HTTP/1.0" : "HTTP/1.1" }
}
