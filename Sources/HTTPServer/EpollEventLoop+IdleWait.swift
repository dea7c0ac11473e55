#if canImport(Glibc)
import CLinux
import HTTP
import Glibc

/// How an epoll loop waits once a round ends with nothing to do: it polls, then sleeps (see `IdlePoll`). Loop thread
/// only, as the loop's round is.
extension EpollEventLoop {
    /// The round ended with no task waiting: polls for the window `idlePoll` gives, then blocks for up to `timeout`
    /// milliseconds, and tells `idlePoll` how the stretch ended. Returns what `epoll_wait` returned (at most `limit`
    /// descriptors), or 0 when a task handed over ended the poll (the round then runs it).
    func waitIdle(
        _ readyFDs: UnsafeMutablePointer<Int32>, _ readyEvents: UnsafeMutablePointer<UInt32>, _ limit: Int, timeout: Int32
    ) -> Int32 {
        let start = MonotonicInstant.now.nanoseconds
        let window = idlePoll.window(at: start)
        idleStretches.store(idleStretches.load(ordering: .relaxed) + 1, ordering: .relaxed)
        defer { idlePollWindow.store(idlePoll.window(at: now.nanoseconds), ordering: .relaxed) }
        if window > 0 {
            // Awake while it polls: a task handed over only joins the list, which each pass reads, instead of
            // writing the `eventfd` too (two system calls). `mayBlock` is set again before the sleep, then the list
            // read once more: the protocol of `execute` (see `mayBlock`).
            mayBlock.store(false, ordering: .sequentiallyConsistent)
            // Read once a polling stretch, before its first yield (most stretches end at their first poll, and it
            // is a system call); again only after a yield that took long (see below).
            var switchedOut: Int?
            while true {
                let count = specd_epoll_wait(epollFD, readyFDs, readyEvents, Int32(limit), 0)
                if count < 0 { return count }
                let polled = readClock().nanoseconds
                if count > 0 || tasks.hasPending {
                    // Found after the window ran out (the loop was kept off the CPU): a miss, not a hit.
                    let inTime = polled - start <= window
                    if inTime {
                        idleStretchesEndedPolling.store(idleStretchesEndedPolling.load(ordering: .relaxed) + 1, ordering: .relaxed)
                    }
                    idlePoll.idleEnded(after: polled - start, foundWhilePolling: inTime, at: polled)
                    return count
                }
                if polled - start >= window { break }
                // A thread woken on this CPU (under `--fsync always` on one core, the helper back from its fsync)
                // runs now, not when the scheduler would preempt a polling loop. A yield that took long and let
                // another task run is reported; enough of them within 50 ms find a task that wants the CPU, and
                // polling stops for a while (see `IdlePoll`). Both, not the time alone: the kernel's receive work
                // for arriving packets runs in the yield's system call, tens of microseconds with no other task
                // anywhere.
                if switchedOut == nil { switchedOut = specd_thread_involuntary_switches() }
                sched_yield()
                let resumed = MonotonicInstant.now.nanoseconds
                let pausedUntil = idlePoll.pausedUntil
                if resumed - polled > idlePoll.longYield {
                    // A switch since the stretch's first yield or the last counted one is charged to this long
                    // yield: reading the count before every yield would be exact, at a system call a yield.
                    let switches = specd_thread_involuntary_switches()
                    if switches != switchedOut {
                        switchedOut = switches
                        idlePoll.yielded(resumed - polled, at: resumed)
                    }
                }
                if idlePoll.pausedUntil != pausedUntil {
                    idlePollPauses.store(idlePollPauses.load(ordering: .relaxed) + 1, ordering: .relaxed)
                }
                if idlePoll.window(at: resumed) == 0 { break }
            }
            mayBlock.store(true, ordering: .sequentiallyConsistent)
            if tasks.hasPending { return 0 }
        }
        let count = specd_epoll_wait(epollFD, readyFDs, readyEvents, Int32(limit), timeout)
        if count < 0 { return count }
        let woken = readClock().nanoseconds
        // A sleep that timed out (the tick) was a long stretch, however short the tick.
        idlePoll.idleEnded(after: count == 0 ? .max : woken - start, foundWhilePolling: false, at: woken)
        return count
    }
}
#endif
