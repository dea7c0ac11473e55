import HTTP

/// Every way a client exchange can fail. The connection involved is closed after any of them.
public enum HTTPClientError: Error, Equatable, Sendable {
    /// Which part of the exchange ran out of time.
    public enum Phase: Sendable, Equatable {
        case connect
        case send
        case receive
    }

    /// `getaddrinfo` found no IPv4 address for the host.
    case unresolvable(host: String)
    /// The connection could not be opened (`ECONNREFUSED`, `ENETUNREACH`, ...).
    case connectFailed(errno: Int32)
    case timedOut(Phase)
    case sendFailed(errno: Int32)
    case receiveFailed(errno: Int32)
    /// The server's bytes were not a response this client can frame; `.endOfInput` when it closed early.
    case invalidResponse(HTTPResponseError)
    /// A header the caller gave is not a token name with a printable value, or is one the client frames itself.
    case invalidRequestHeader(name: String)
    /// The method is not a token or the target is not a printable origin-form path.
    case invalidRequestLine
}
