#if canImport(Glibc)
/// The bounds of an epoll loop's round: how much one round takes before it ends, sends and sleeps.
extension EpollEventLoop {
    /// How many times the round's hooks run when each run is followed by tasks that deferred more work.
    static let maximumHookPasses = 4

    /// How many times a round looks again for ready sockets while a hook has a commit pending (see `runLoop`).
    static let gatherPolls = 3

    /// The most ready descriptors a round takes before it ends and sends its replies. Replies wait for the round's
    /// end (`sendAtRoundEnd`), so the first connection read in a round waits for every other one; with no bound, a
    /// round held every connection of a busy client, which then got all its replies in one burst and sent its next
    /// requests in one burst, each side idle while the other worked. The descriptors left over stay on the ready
    /// list (level- or edge-triggered alike) and are reported by the next wait, ahead of those that became ready
    /// again. A round gathering for its own commit (one CPU, above) still takes all that is ready, so its fsync's
    /// batch is as large as before. Measured pinned, 32 connections reading, alternated runs in both start orders
    /// (p99 on this host moves by up to ×2 between runs, so only the direction is firm): wrk's p99 was lower than
    /// with no bound in every comparison (by 5 to 14 %), and than with 32, at the same rate; 8 measured no better.
    /// Since a read's reply goes out as it is made (`HTTPConnection.complete`), the bound matters for the
    /// replies still sent at the round's end (writes'): with reads sent at once, 4, 16 and 64 measured alike.
    static let roundLimit = 16
}
#endif
