/// How long an event loop with nothing to do keeps asking for events before it sleeps, adapted from what the last
/// idle stretches were: the rule of the Linux guest halt-polling governor (`haltpoll`), applied to `epoll_wait`.
///
/// Why poll at all: a loop asleep in `epoll_wait` is woken by the kernel when a request arrives, and on a virtual
/// machine that wake-up (the halt, the interrupt, the scheduler) costs tens of microseconds, paid by the request.
/// Under load the next request usually comes within microseconds, so a loop that keeps asking a little longer finds
/// it awake. Why adapt: polling burns the CPU it waits on, which pays only when the wait is short. So the window
/// grows while idle stretches end within `limit` (a longer poll would have caught them) and halves when one runs
/// past it (the poll was wasted): a daemon serving sparse requests settles at no polling, one at full load at the
/// window its gaps need, never over `limit`.
///
/// A value type with no clock of its own: the loop measures, this decides. Loop thread only.
public struct IdlePoll: Sendable, Equatable {
    /// The longest window, in nanoseconds; 0 turns polling off.
    public let limit: Int64
    /// How long the next idle stretch polls before it blocks, in nanoseconds (0: it blocks at once).
    public private(set) var window: Int64 = 0

    /// The smallest window that polls: a shorter one is not worth its system calls, so the window grows from here
    /// and falls to 0 below it.
    public static let smallestWindow: Int64 = 10_000

    /// The default `limit`: it took the read row's p99 down by about a tenth on a virtual machine (scripts/bench.sh),
    /// and a loop with gaps longer than it never polls.
    public static let defaultLimit = Duration.microseconds(200)

    /// The largest `limit` a configuration may set (10 ms): past it a loop would burn whole ticks.
    public static let largestLimit = Duration.milliseconds(10)

    /// `limit` is clamped to 0...`largestLimit`.
    public init(limit: Duration) {
        self.limit = min(max(0, limit.saturatingNanoseconds), Self.largestLimit.saturatingNanoseconds)
    }

    /// An idle stretch ended after `idle` nanoseconds (from the first poll to the event that ended it, blocked
    /// time included); `polling` says whether the poll found the event before the window ran out.
    public mutating func idleEnded(after idle: Int64, foundWhilePolling polling: Bool) {
        guard limit > 0, !polling else { return }
        if idle <= limit {
            // Woken soon after it gave up: a longer window would have found the event awake.
            window = min(limit, max(Self.smallestWindow, window.multipliedReportingOverflow(by: 2).partialValue))
        } else {
            // A long stretch: the poll bought nothing.
            window /= 2
            if window < Self.smallestWindow { window = 0 }
        }
    }
}
