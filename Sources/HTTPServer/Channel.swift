import HTTP

/// A file descriptor's owner on an event loop. All calls arrive on the loop's thread.
protocol Channel: AnyObject {
    var fd: Int32 { get }
    /// Whether the epoll loop reports this descriptor's readiness edge-triggered: once each time it arises (bytes
    /// arrive, room frees, the peer shuts down), not again on every wait while it holds. Such a channel either
    /// reads until nothing is left or asks `EventLoop.readAgain`; a pause and resume of reading (`setInterest`)
    /// looks at the socket again by itself. Level-triggered (the default) costs each reported descriptor a second
    /// poll at the next wait, which finds it drained and drops it.
    var edgeTriggered: Bool { get }
    func readable()
    /// The same, with what the loop saw: `peerShutDown` when the peer has shut its side down (`EPOLLRDHUP`), whose
    /// end of file an edge-triggered channel must still read after the bytes before it; `urgent` when out-of-band
    /// data waits (`EPOLLPRI`), at whose mark a read returns short with bytes still behind it.
    func readable(peerShutDown: Bool, urgent: Bool)
    func writable()
    /// The descriptor reported a hang-up or an error, whatever the interest. Level-triggered, a channel that
    /// neither reads nor closes here has the loop woken for it on every wait; edge-triggered, only once.
    func hungUp()
    /// Deadline check: when the deadline the channel last reported has passed (epoll loop), or about four times a
    /// second (Dispatch loop).
    func tick(now: MonotonicInstant)
    /// The round ended with output this channel queued through `EventLoop.sendAtRoundEnd`.
    func sendQueuedOutput()
}

extension Channel {
    var edgeTriggered: Bool { false }
    func readable(peerShutDown: Bool, urgent: Bool) { readable() }
    func sendQueuedOutput() {}
    func hungUp() { readable() }
}
