/// What the transport can say about itself, for readiness, status and metrics, without handing out the server.
public protocol ServerStatus: Sendable {
    var isDraining: Bool { get }
    var openConnections: Int { get }
    /// Times a listener paused accepting because descriptors ran out.
    var acceptPauses: Int { get }
}
