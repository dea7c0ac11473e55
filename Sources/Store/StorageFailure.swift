/// The log can no longer acknowledge writes until the daemon restarts.
public struct StorageFailure: Error, Equatable, Sendable, CustomStringConvertible {
    public let underlying: IOError

    public init(_ underlying: IOError) {
        self.underlying = underlying
    }

    public var description: String { "storage failed: \(underlying)" }
}
