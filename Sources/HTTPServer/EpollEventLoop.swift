#if canImport(Glibc)
import HTTP
import CLinux
import Foundation
import Glibc
import Synchronization

/// One thread blocked in `epoll_wait`, owning its channels outright. Other threads hand it work through a locked
/// task list and an `eventfd` wake-up.
///
/// Connections are watched edge-triggered (`Channel.edgeTriggered`), listening sockets and the wake-up
/// level-triggered. Level-triggered, every descriptor a wait reports goes back on the ready list, and the next wait
/// polls its socket again only to find it drained: that poll (`tcp_poll` under `ep_item_poll`) was some 4 % of
/// the daemon's CPU at full load on flag reads (perf).
///
/// Deadlines live in a flat table by descriptor, which channels keep current: every `tickInterval` the loop scans
/// the table (a few microseconds for ten thousand entries) and ticks only the channels whose deadline passed, so
/// ten thousand quiet streams cost nothing, and no request waits behind a sweep over all of them.
final class EpollEventLoop: EventLoop, @unchecked Sendable {
    let epollFD: Int32
    private let wakeFD: Int32
    /// Indexed by descriptor (descriptors are small and dense); touched only on the loop thread, so the runtime's
    /// exclusivity checks (two per access, several accesses per request) are left out.
    @exclusivity(unchecked) private var channels: [Channel?] = []
    /// By descriptor, the HTTP connection `channels` holds there, unretained: a readiness event lends it to the
    /// connection's handler without the retain and release a copy out of `channels` costs (two atomic operations an
    /// event). Safe because nothing it points at is freed in the middle of a round: `close`, and `add` over a
    /// descriptor still held, move the channel to `closedInRound`, which lets go of them when the round ends.
    @exclusivity(unchecked) private var connections: [Unmanaged<HTTPConnection>?] = []
    /// Channels closed (or replaced) during this round, kept alive until it ends (see `connections`); loop thread only.
    @exclusivity(unchecked) private var closedInRound: [Channel] = []
    /// Milliseconds since `epoch` at which each descriptor's channel wants a tick; `Int64.max` for none.
    @exclusivity(unchecked) private var deadlines: [Int64] = []
    /// By descriptor: the interest last given to `epoll_ctl` (`SPECD_EV_*` bits), which `readAgain` gives again.
    @exclusivity(unchecked) private var interests: [UInt32] = []
    private let epoch = MonotonicInstant.now
    /// The reading `now` returns, in nanoseconds: stored by the loop thread, and atomic only so that a read from
    /// another thread is no data race (a relaxed load is a plain load on x86-64 and ARM64).
    private let clock = Atomic<Int64>(MonotonicInstant.now.nanoseconds)
    /// Channels with responses to send when the round ends (see `sendAtRoundEnd`); loop thread only.
    @exclusivity(unchecked) private var sendQueue: [Channel] = []
    /// By descriptor: whether the channel there is in `sendQueue` already.
    @exclusivity(unchecked) private var sendQueued: [Bool] = []
    /// Whether this round sent a reply at once (`repliedAtOnce`); loop thread only, cleared when a wait returns.
    @exclusivity(unchecked) private var repliedInRound = false
    /// Tasks handed over from any thread, run between rounds.
    let tasks = LoopTasks()
    /// True while the loop is in, or about to enter, a wait that may block. A task queued meanwhile writes the
    /// `eventfd`; one queued while the loop is busy only joins the list, which the loop reads twice a round anyway:
    /// the write, and the read and `epoll` event it caused, were two system calls for every fsync handed back
    /// under `--fsync always` (perf). Both sides store, then load the other's flag, sequentially consistent: at
    /// least one sees the other, so a task is never left asleep (a second wake is harmless).
    let mayBlock = Atomic<Bool>(false)
    /// Set before `start`, then read only by the loop thread, which lends them to each round unretained (see
    /// `RoundHook`).
    @exclusivity(unchecked) private var iterationHooks: [RoundHook<Void>] = []
    /// Set before `start`, then read only by the loop thread (see `addIterationHook`'s `gatherWhile`).
    @exclusivity(unchecked) private var gatherPredicates: [RoundHook<Bool>] = []
    private let loopThread = Atomic<UInt>(0)
    private let running = Atomic<Bool>(true)
    private let stopped = DispatchSemaphore(value: 0)
    private let tickInterval: Duration
    /// How long an idle loop polls before it sleeps (see `IdlePoll`); loop thread only.
    @exclusivity(unchecked) var idlePoll: IdlePoll
    /// Idle stretches so far, those a poll ended (not a sleep), and the window the next one polls: written by the
    /// loop alone (a load and a store, no locked add), read by tests.
    let idleStretches = Atomic<Int>(0)
    let idleStretchesEndedPolling = Atomic<Int>(0)
    let idlePollWindow = Atomic<Int64>(0)
    /// Times polling stopped because long yields spent the busy budget: another task wants the CPU (see
    /// `IdlePoll.yielded`).
    let idlePollPauses = Atomic<Int>(0)

    init(tickInterval: Duration = .milliseconds(50), idlePoll: IdlePoll = IdlePoll(limit: IdlePoll.defaultLimit)) {
        epollFD = specd_epoll_create()
        wakeFD = specd_eventfd()
        self.tickInterval = tickInterval
        self.idlePoll = idlePoll
        specd_epoll_ctl(epollFD, 0, wakeFD, UInt32(SPECD_EV_READ))
    }

    deinit {
        Glibc.close(wakeFD)
        Glibc.close(epollFD)
    }

    var inEventLoop: Bool { loopThread.load(ordering: .relaxed) == UInt(pthread_self()) }

    /// Replies queued for the round's end or sent at once in it, or a task handed over (queued, or taken with the one
    /// running). Descriptors that became ready since the round's last wait are not looked at (see
    /// `EventLoop.hasWaitingWork`).
    var hasWaitingWork: Bool { repliedInRound || !sendQueue.isEmpty || tasks.hasWaiting }

    func repliedAtOnce() { repliedInRound = true }

    var now: MonotonicInstant { MonotonicInstant(nanoseconds: clock.load(ordering: .relaxed)) }

    /// Reads the clock for the pass that follows (see `EventLoop.now`); returns the reading.
    @discardableResult
    func readClock() -> MonotonicInstant {
        let now = MonotonicInstant.now
        clock.store(now.nanoseconds, ordering: .relaxed)
        return now
    }

    func add(_ channel: Channel) {
        let index = Int(channel.fd)
        if index >= channels.count {
            let growth = max(index + 1 - channels.count, channels.count)
            channels += Array(repeating: nil, count: growth)
            connections += Array(repeating: nil, count: growth)
            deadlines += Array(repeating: .max, count: growth)
            interests += Array(repeating: 0, count: growth)
            sendQueued += Array(repeating: false, count: growth)
        }
        if let replaced = channels[index] { closedInRound.append(replaced) }
        channels[index] = channel
        connections[index] = (channel as? HTTPConnection).map { Unmanaged.passUnretained($0) }
        // Ticked at the next scan, where it reports its real deadline.
        deadlines[index] = 0
        // A channel replaced without `close` may have left its flag: the newcomer queues itself.
        sendQueued[index] = false
        let interest = UInt32(SPECD_EV_READ) | Self.triggering(channel)
        interests[index] = interest
        specd_epoll_ctl(epollFD, 0, channel.fd, interest)
    }

    func setInterest(_ channel: Channel, read: Bool, write: Bool) {
        let interest = (read ? UInt32(SPECD_EV_READ) : 0) | (write ? UInt32(SPECD_EV_WRITE) : 0) | Self.triggering(channel)
        let index = Int(channel.fd)
        if index < channels.count, channels[index] === channel { interests[index] = interest }
        specd_epoll_ctl(epollFD, 1, channel.fd, interest)
    }

    /// The same interest given again: `epoll_ctl`'s modify polls the socket and, if it is readable, reports it at
    /// the next wait, as level triggering would have.
    func readAgain(_ channel: Channel) {
        let index = Int(channel.fd)
        guard index < channels.count, channels[index] === channel, interests[index] & UInt32(SPECD_EV_READ) != 0 else { return }
        specd_epoll_ctl(epollFD, 1, channel.fd, interests[index])
    }

    private static func triggering(_ channel: Channel) -> UInt32 {
        channel.edgeTriggered ? UInt32(SPECD_EV_EDGE) : 0
    }

    func close(_ channel: Channel) {
        let index = Int(channel.fd)
        guard index < channels.count, channels[index] === channel else { return }
        // Kept until the round ends: its own event handler may be what closed it, and holds it unretained.
        closedInRound.append(channel)
        channels[index] = nil
        connections[index] = nil
        deadlines[index] = .max
        // A channel given this descriptor later in the round queues itself; the closed one's entry is skipped.
        sendQueued[index] = false
        specd_epoll_ctl(epollFD, 2, channel.fd, 0)
        Glibc.close(channel.fd)
    }

    func execute(_ task: @escaping @Sendable () -> Void) {
        if tasks.enqueue(task), mayBlock.load(ordering: .sequentiallyConsistent) { wake() }
    }

    func setDeadline(_ channel: Channel, _ deadline: MonotonicInstant?) {
        let index = Int(channel.fd)
        guard index < channels.count, channels[index] === channel else { return }
        deadlines[index] = deadline.map(milliseconds) ?? .max
    }

    /// Rounded up: a tick that comes a little late is harmless, one that comes early finds nothing due.
    private func milliseconds(_ instant: MonotonicInstant) -> Int64 {
        instant.millisecondsRoundedUp(since: epoch)
    }

    func addIterationHook(_ hook: @escaping @Sendable () -> Void, gatherWhile pending: (@Sendable () -> Bool)?) -> Bool {
        iterationHooks.append(RoundHook(hook))
        if let pending { gatherPredicates.append(RoundHook(pending)) }
        return true
    }

    /// Replies wait for the end of the round and then go out back to back, as Redis writes its replies before it
    /// sleeps: a peer blocked in `epoll_wait` is woken once for the burst instead of once per reply (the wake-up is
    /// the largest single kernel cost of a small response on loopback).
    func sendAtRoundEnd(_ channel: Channel) -> Bool {
        let index = Int(channel.fd)
        guard index < channels.count, channels[index] === channel else { return false }
        if !sendQueued[index] {
            sendQueued[index] = true
            sendQueue.append(channel)
        }
        return true
    }

    func forEachChannel(_ body: (Channel) -> Void) {
        for channel in channels.compactMap({ $0 }) { body(channel) }
    }

    func start() {
        let thread = Thread { [self] in
            specd_name_current_thread("specd-epoll")
            runLoop()
        }
        thread.start()
    }

    func stop() {
        running.store(false, ordering: .releasing)
        wake()
        stopped.wait()
    }

    private func wake() {
        var one: UInt64 = 1
        _ = Glibc.write(wakeFD, &one, 8)
    }

    private func runLoop() {
        loopThread.store(UInt(pthread_self()), ordering: .releasing)
        let capacity = 512
        let readyFDs = UnsafeMutablePointer<Int32>.allocate(capacity: capacity)
        let readyEvents = UnsafeMutablePointer<UInt32>.allocate(capacity: capacity)
        defer {
            readyFDs.deallocate()
            readyEvents.deallocate()
        }
        let readBits = UInt32(SPECD_EV_READ)
        let writeBits = UInt32(SPECD_EV_WRITE)
        // `EPOLLHUP` and `EPOLLERR` (both directions down, or a reset) are reported whatever the interest.
        let hangUpBits = UInt32(SPECD_EV_HANGUP | SPECD_EV_ERROR)
        let peerShutDownBits = UInt32(SPECD_EV_PEER_SHUTDOWN)
        let urgentBits = UInt32(SPECD_EV_URGENT)
        var nextScan = MonotonicInstant.now + tickInterval
        let timeoutMilliseconds = Int32(clamping: max(1, tickInterval.millisecondsForTimers))
        // Whether the last round took as many descriptors as a wait may give: others may still be ready.
        var roundWasFull = false
        // Set before `start` and never changed after, and kept alive by the properties: lent to each round, neither
        // the arrays nor each closure's context is retained and released around a call (two atomic operations
        // each, every round, when the properties were read and the closures called from them).
        let hooks = iterationHooks.map { Unmanaged.passUnretained($0) }
        let gathers = gatherPredicates.map { Unmanaged.passUnretained($0) }
        while running.load(ordering: .acquiring) {
            // What a full round left is taken at once: no idle stretch begins (idle polling counts none), and the
            // loop stays awake, so a task handed over meanwhile only joins the list (see `mayBlock`).
            var wait: Int32 = 0
            if !roundWasFull {
                mayBlock.store(true, ordering: .sequentiallyConsistent)
                wait = tasks.hasPending ? 0 : timeoutMilliseconds
            }
            // At most `roundLimit` descriptors a round (see there); a round gathering for a commit takes the rest.
            var count =
                wait != 0 && idlePoll.limit > 0
                ? waitIdle(readyFDs, readyEvents, Self.roundLimit, timeout: wait)
                : specd_epoll_wait(epollFD, readyFDs, readyEvents, Int32(Self.roundLimit), wait)
            roundWasFull = count >= Int32(Self.roundLimit)
            mayBlock.store(false, ordering: .relaxed)
            repliedInRound = false
            readClock()
            var gathered = 0
            while count > 0 {
                for index in 0..<Int(count) {
                    let fd = readyFDs[index]
                    let flags = readyEvents[index]
                    if fd == wakeFD {
                        var value: UInt64 = 0
                        _ = Glibc.read(wakeFD, &value, 8)
                        continue
                    }
                    if flags & hangUpBits != 0, let channel = channel(fd) {
                        channel.hungUp()
                        continue
                    }
                    if flags & writeBits != 0 {
                        if let connection = connection(fd) {
                            connection._withUnsafeGuaranteedRef { $0.writable() }
                        } else if let channel = channel(fd) {
                            channel.writable()
                        }
                    }
                    if flags & readBits != 0 {
                        let peerShutDown = flags & peerShutDownBits != 0
                        let urgent = flags & urgentBits != 0
                        if let connection = connection(fd) {
                            connection._withUnsafeGuaranteedRef { $0.readable(peerShutDown: peerShutDown, urgent: urgent) }
                        } else if let channel = channel(fd) {
                            channel.readable(peerShutDown: peerShutDown, urgent: urgent)
                        }
                    }
                }
                // A hook about to commit the round (one log write; under `always`, one fsync) first takes what
                // became ready meanwhile, without waiting: more requests share the commit. Measured pinned under
                // `always`: 17 records per fsync became 29, and donations 18.5–18.9k/s became 20.2–21.2k/s. All
                // that is ready, past `roundLimit`: the round ends with the commit anyway.
                guard gathered < Self.gatherPolls, gathers.contains(where: { $0._withUnsafeGuaranteedRef { $0.run() } }) else { break }
                gathered += 1
                count = specd_epoll_wait(epollFD, readyFDs, readyEvents, Int32(capacity), 0)
                if count > 0 { readClock() }
                if count >= Int32(capacity) { roundWasFull = true }
            }
            tasks.runQueued()
            // Work the round deferred, such as one log write for every request it read. It may queue tasks, and
            // tasks may defer more work: the hooks run again after tasks that ran, so nothing deferred waits for
            // the next event. Bounded, so a stream of tasks cannot keep the loop from its sockets; the last pass
            // wakes the loop so its leftovers are handled without waiting for the tick.
            if !hooks.isEmpty {
                var passes = 0
                var ranTasks = false
                repeat {
                    for hook in hooks { hook._withUnsafeGuaranteedRef { $0.run() } }
                    passes += 1
                    ranTasks = tasks.runQueued()
                } while ranTasks && passes < Self.maximumHookPasses
                if ranTasks { wake() }
            }
            // Read again after the round's tasks and hooks (a hook may have waited for an fsync): the replies
            // made next, in the tick, and the round's sends see this reading.
            let now = readClock()
            if now >= nextScan {
                nextScan = now + tickInterval
                tickDue(now: now)
            }
            // Last, so a reply made anywhere in the round, a tick included, goes out before the loop sleeps.
            sendQueuedOutput()
            // Emptied from the end, keeping its room (see `sendQueuedOutput`); a channel freed here may close nothing
            // more of the loop's (its descriptor is closed already).
            while !closedInRound.isEmpty { closedInRound.removeLast() }
        }
        tasks.runQueued()
        sendQueuedOutput()
        stopped.signal()
    }

    /// Read by index: a channel that queued again while sending (it should not) is still sent in this pass.
    private func sendQueuedOutput() {
        guard !sendQueue.isEmpty else { return }
        var index = 0
        while index < sendQueue.count {
            let channel = sendQueue[index]
            index += 1
            // Closed (or replaced) since it queued: the descriptor and its flag belong to someone else now.
            let fd = Int(channel.fd)
            guard fd < channels.count, channels[fd] === channel else { continue }
            sendQueued[fd] = false
            channel.sendQueuedOutput()
        }
        // Emptied from the end, keeping its room: `removeAll(keepingCapacity:)` went through the generic
        // `replaceSubrange`, some 160 instructions a round for the one channel a round usually sends.
        while !sendQueue.isEmpty { sendQueue.removeLast() }
    }

    private func channel(_ fd: Int32) -> Channel? {
        Int(fd) < channels.count ? channels[Int(fd)] : nil
    }

    private func connection(_ fd: Int32) -> Unmanaged<HTTPConnection>? {
        Int(fd) < connections.count ? connections[Int(fd)] : nil
    }

    private func tickDue(now: MonotonicInstant) {
        let current = milliseconds(now)
        for index in deadlines.indices where deadlines[index] <= current {
            // Cleared first: the tick reports the next one. Bound first: a tick may close the channel.
            deadlines[index] = .max
            if let channel = channels[index] { channel.tick(now: now) }
        }
    }
}
#endif
