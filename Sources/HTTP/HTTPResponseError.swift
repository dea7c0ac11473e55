/// Every way a response can fail to be read. After any of them the connection is closed: its framing is unknown.
public enum HTTPResponseError: Error, Equatable, Sendable {
    /// Where the input ended early.
    public enum Phase: Sendable, Equatable {
        /// Not one byte of a response had arrived (on a reused connection: the server had closed it while idle).
        case beforeResponse
        case head
        case body
    }

    case headTooLarge
    case tooManyHeaders
    case malformedStatusLine
    case unsupportedVersion
    /// A 101: specd never asks to upgrade, so a switch of protocols is a broken peer.
    case unexpectedUpgrade
    case invalidHeaderName
    case invalidHeaderValue(name: String)
    case invalidContentLength
    case conflictingContentLength
    case contentLengthWithTransferEncoding
    case unsupportedTransferCoding
    case bodyTooLarge
    case invalidChunkSize
    case chunkLineTooLong
    case invalidChunkTerminator
    case endOfInput(during: Phase)
}
