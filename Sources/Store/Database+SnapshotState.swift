extension Database {
    /// The automatic snapshots' bookkeeping, under one lock.
    struct SnapshotState {
        var lastSeq: UInt64 = 0
        /// The size of the snapshot at `lastSeq` (0 with none), and the log's `bytesWritten` when it was captured.
        var lastBytes = 0
        var logBytesAtLast = 0
        var running = false
        var lastAt: ContinuousClock.Instant?
        var failures = 0
        var lastError: IOError?
        /// Set after a failure: the next automatic attempt waits for `afterSeq` and `at`; `backoff` doubles.
        var retry: (afterSeq: UInt64, at: ContinuousClock.Instant, backoff: Duration)?
    }

    /// Whether the log written since the last snapshot is `percent` of that snapshot's size (`snapshotGrowthPercent`).
    /// Exact for any sizes and percentages: both products are taken in double width.
    public static func logHasGrown(written: Int, snapshotBytes: Int, percent: Int) -> Bool {
        let have = UInt(max(0, written)).multipliedFullWidth(by: 100)
        let needed = UInt(max(0, snapshotBytes)).multipliedFullWidth(by: UInt(max(0, percent)))
        return (have.high, have.low) >= (needed.high, needed.low)
    }
}
