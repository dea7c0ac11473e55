/// When a write is acknowledged (README, "Data and durability").
public enum FsyncPolicy: String, Sendable, CaseIterable {
    /// After the fsync that covers it; concurrent writers share one fsync (group commit).
    case always
    /// After the write reaches the file; fsync runs every interval, so a crash may lose that window.
    case interval
    /// After the write reaches the file; never fsynced by us (tests, benchmarks).
    case never
}
