/// Why a write was not applied.
public enum StoreError: Error, Equatable, Sendable {
    /// The batch was invalid; nothing was applied.
    case rejected(ReducerError)
    /// The log failed earlier or now; no write is acknowledged until restart.
    case storageFailed(StorageFailure)
    /// The write would create a user beyond the configured cap (`maxUsers`); existing users still take writes.
    case capacity(limit: Int)
}
