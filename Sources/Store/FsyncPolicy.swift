/// When a write is acknowledged (DESIGN §7).
public enum FsyncPolicy: String, Sendable, CaseIterable {
    /// After the fsync that covers it; concurrent writers share one fsync (group commit).
    case always
    /// After the write reaches the file; fsync runs every interval, so a crash may lose that window.
    case interval
    /// After the write reaches the file; never fsynced by us (tests, benchmarks).
    case never
}

/// The log can no longer acknowledge writes until the daemon restarts.
public struct StorageFailure: Error, Equatable, Sendable, CustomStringConvertible {
    public let underlying: IOError

    public init(_ underlying: IOError) {
        self.underlying = underlying
    }

    public var description: String { "storage failed: \(underlying)" }
}
