/// The bounds a client puts on a response it reads, so a hostile or broken server cannot make it buffer without end.
public struct HTTPResponseLimits: Sendable, Equatable {
    /// Largest head: status line and field lines with their line ends (RFC 9112 §2.3 leaves the bound to the recipient).
    public var maxHeadBytes: Int
    /// Most field lines in one head (trailers are bounded the same way).
    public var maxHeaderCount: Int
    /// Largest body, however it is framed; the caller chooses it per request.
    public var maxBodyBytes: Int
    /// Longest chunk-size line including extensions (RFC 9112 §7.1.1).
    public var maxChunkLineBytes: Int

    public init(maxHeadBytes: Int = 64 * 1024, maxHeaderCount: Int = 100, maxBodyBytes: Int = 8 * 1024 * 1024, maxChunkLineBytes: Int = 1024) {
        self.maxHeadBytes = maxHeadBytes
        self.maxHeaderCount = maxHeaderCount
        self.maxBodyBytes = maxBodyBytes
        self.maxChunkLineBytes = maxChunkLineBytes
    }

    public static let `default` = HTTPResponseLimits()
}
