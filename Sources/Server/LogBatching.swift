import Store

extension HTTPServer {
    /// Writes made on a loop thread reach the log in one `write` per round of that loop (as Redis writes its
    /// append-only file before the loop sleeps): a lone request pays no hand-off to another thread. A busy round
    /// hands its batch to the log's writer thread instead, so the loop returns to its sockets while the other core
    /// writes and completes. Other threads keep flushing at once. Call before `start()`; without round hooks (the
    /// Dispatch loop) nothing changes.
    public func batchLogWrites(of database: Database) {
        let log = database.log
        guard addIterationHook({ log.flush(handingOffAbove: AppendLog.handOffAbove) }) else { return }
        database.flushLogAtRoundEnds { [self] in isLoopThread }
    }
}
