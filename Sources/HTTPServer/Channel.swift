import HTTP

/// A file descriptor's owner on an event loop. All calls arrive on the loop's thread.
protocol Channel: AnyObject {
    var fd: Int32 { get }
    func readable()
    func writable()
    /// The descriptor reported a hang-up or an error. Level-triggered and reported whatever the interest: a
    /// channel that neither reads nor closes here has the loop woken for it on every wait.
    func hungUp()
    /// Deadline check: when the deadline the channel last reported has passed (epoll loop), or about four times a
    /// second (Dispatch loop).
    func tick(now: MonotonicInstant)
    /// The round ended with output this channel queued through `EventLoop.sendAtRoundEnd`.
    func sendQueuedOutput()
}

extension Channel {
    func sendQueuedOutput() {}
    func hungUp() { readable() }
}
