import HTTP

/// One event as it goes on the wire, framed once for every stream that gets it: the bytes as they are (HTTP/1.0
/// streams end at the close) and as one HTTP/1.1 chunk. Fanning an event out to ten thousand streams then copies
/// no bytes and formats no chunk size.
public struct EventFrame: Sendable {
    public let raw: [UInt8]
    public let chunked: [UInt8]

    public init(_ bytes: [UInt8]) {
        raw = bytes
        var framed: [UInt8] = []
        framed.reserveCapacity(bytes.count + 12)
        HTTPResponseEncoder.encodeChunk(bytes, into: &framed)
        chunked = framed
    }

    func wire(chunked isChunked: Bool) -> [UInt8] { isChunked ? chunked : raw }
}
