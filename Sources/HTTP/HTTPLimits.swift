/// The size bounds the parser enforces while it reads a request (README, "HTTP behaviour").
///
/// Limits are data so that tests can shrink them and operators can tune them; each one maps to its own
/// `HTTPParseError` and status code.
public struct HTTPLimits: Sendable, Equatable {
    /// Longest request line, CRLF excluded (RFC 9112 §3: a server should answer 414 past its bound).
    public var maxRequestLineBytes: Int
    /// Largest header section (field lines and their CRLFs), trailers included (RFC 6585 §5: 431).
    public var maxHeaderBytes: Int
    /// Most field lines in one header section (431 past it).
    public var maxHeaderCount: Int
    /// Largest request body, however it is framed (413, answered before the body is read).
    public var maxBodyBytes: Int
    /// Longest chunk-size line including extensions (RFC 9112 §7.1.1 lets a server bound extensions).
    public var maxChunkLineBytes: Int

    public init(
        maxRequestLineBytes: Int = 8 * 1024,
        maxHeaderBytes: Int = 32 * 1024,
        maxHeaderCount: Int = 100,
        maxBodyBytes: Int = 1024 * 1024,
        maxChunkLineBytes: Int = 1024
    ) {
        self.maxRequestLineBytes = maxRequestLineBytes
        self.maxHeaderBytes = maxHeaderBytes
        self.maxHeaderCount = maxHeaderCount
        self.maxBodyBytes = maxBodyBytes
        self.maxChunkLineBytes = maxChunkLineBytes
    }

    public static let `default` = HTTPLimits()
}
