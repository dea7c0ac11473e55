import HTTP

/// The one small interface between connection logic and readiness notification, so that the Dispatch-based loop
/// and the epoll loop can be measured against each other on equal terms.
protocol EventLoop: AnyObject, Sendable {
    /// Starts watching the channel's descriptor for readability.
    func add(_ channel: Channel)
    func setInterest(_ channel: Channel, read: Bool, write: Bool)
    /// An edge-triggered channel stopped reading with bytes, or an end of file, that may still wait in its socket
    /// (its read filled the buffer, came with the peer's shutdown, or stopped at urgent data's mark): the loop looks
    /// at the socket again and reports it readable if it is. A loop that reports readiness level-triggered does
    /// nothing.
    func readAgain(_ channel: Channel)
    /// Stops watching and closes the descriptor.
    func close(_ channel: Channel)
    /// Runs `task` on the loop's thread (inline when already there is the caller's business: see `inEventLoop`).
    func execute(_ task: @escaping @Sendable () -> Void)
    var inEventLoop: Bool { get }
    /// Whether work the loop already has would wait if the loop blocked now: replies queued for the round's end
    /// (their clients wait for them, and for nothing else), replies the round sent at once (`repliedAtOnce`) or a
    /// task handed over. Asked on the loop's thread by
    /// work about to block it, a log batch's fsync: blocking costs least when nothing waits. Descriptors that
    /// became ready since the round's last wait are not counted: under a write load they are mostly the rest of
    /// the batch's own clients, whose requests the next batch commits either way. A loop that cannot tell says true.
    var hasWaitingWork: Bool { get }
    /// The loop's reading of the monotonic clock, for its channels' deadlines and request starts. The epoll loop
    /// reads the clock once each time its wait returns and at the end of each round, as nginx does once per
    /// wait: the channels of one pass share that reading (up to one pass behind, a millisecond or two under load,
    /// where deadlines are seconds), and a request costs no clock reads of its own, where it made six (about 40 ns
    /// each through the vDSO on a virtual machine's clock). Loops without rounds read the clock on each call.
    var now: MonotonicInstant { get }
    /// When the channel next needs a `tick` (`nil`: not until it says otherwise). Channels report it whenever
    /// their state changes, so a loop can check a flat table of instants instead of visiting every connection.
    func setDeadline(_ channel: Channel, _ deadline: MonotonicInstant?)
    /// Runs `hook` on the loop's thread after each round of ready events and tasks, before it sleeps again.
    /// Returns `false` when this kind of loop has no such point, so callers must not defer work to it. Add hooks
    /// before `start`.
    /// `gatherWhile`, when given and true at the end of the events, has the loop first take (without waiting, a
    /// few times at most) what became ready meanwhile: a hook that commits the round's work (one log write, one
    /// fsync) then shares it among more requests.
    func addIterationHook(_ hook: @escaping @Sendable () -> Void, gatherWhile pending: (@Sendable () -> Bool)?) -> Bool
    /// Calls the channel's `sendQueuedOutput` once, after this round's events, tasks, hooks and ticks and before the loop
    /// sleeps, however many times it was asked in the round. Returns `false` when this kind of loop has no rounds:
    /// the caller sends now.
    func sendAtRoundEnd(_ channel: Channel) -> Bool
    /// A reply made while its request was read went out at once, where it would have waited for the round's end: the
    /// round counts it as waiting work all the same (`hasWaitingWork`). Its client's next request is on its way,
    /// and a reading client's requests keep coming while the round goes on: a log batch that blocked the loop on
    /// its fsync would hold them.
    func repliedAtOnce()
    /// Every channel on this loop, for draining.
    func forEachChannel(_ body: (Channel) -> Void)
    /// Begins serving (the epoll loop starts its thread; the Dispatch loop its tick timer).
    func start()
    /// Stops serving; returns once the loop no longer runs channel code.
    func stop()
}
