import Rules

extension Database {
    /// See `ContextStore.userLog`: read from the files, so it sees what a restart would recover, and never takes a
    /// shard lock or the log's lock.
    public func userLog<Visitor: UserLogVisitor>(
        of user: String, baseBefore seq: UInt64?, into visitor: inout Visitor
    ) throws(HistoryReadError) -> UserLog {
        let log = log
        return try HistoryReader(
            directory: options.directory, fileSystem: fileSystem, policy: options.history, liveSegment: { log.writtenEnd }
        )
        .userLog(of: user, baseBefore: seq, into: &visitor)
    }

    public func observeActivity(_ observer: @escaping @Sendable (StoreActivity) -> Void) {
        activityObservers.withLock { $0.append(observer) }
    }

    /// Tells every observer; called on the snapshot's thread, holding no lock of the store's.
    func report(_ activity: StoreActivity) {
        for observer in activityObservers.withLock({ $0 }) { observer(activity) }
    }
}
