/// A snapshot that could not be written or verified, as its handler hears of it (`Database.onSnapshotFailure`): the
/// error, and how many snapshots have failed since start, this one included. The count comes with the report, so a
/// handler needs no reference to the database to read it.
public struct SnapshotFailure: Error, Equatable, Sendable, CustomStringConvertible {
    public let underlying: IOError
    /// Snapshots that failed since start, this one included.
    public let failuresSinceStart: Int

    public init(_ underlying: IOError, failuresSinceStart: Int) {
        self.underlying = underlying
        self.failuresSinceStart = failuresSinceStart
    }

    public var description: String { "snapshot failed (\(failuresSinceStart) since start): \(underlying)" }
}
