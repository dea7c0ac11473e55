/// What the transport has to say, as data: the composition root decides how (and whether) each is logged.
public enum ServerEvent: Sendable {
    /// A request was answered (the access log).
    case request(method: String, path: String, status: Int, durationMicros: Int, requestID: String, peer: String)
    /// A malformed request was refused before any handler ran.
    case refused(code: String, peer: String)
    /// A listener ran out of descriptors (or socket memory) and paused accepting.
    case acceptPaused(errno: Int32, pauseMillis: Int, openConnections: Int)
}
