/// How long an event loop with nothing to do keeps asking for events before it sleeps, adapted from what the last
/// idle stretches were: the rule of the Linux guest halt-polling governor (`haltpoll`), applied to `epoll_wait`.
///
/// Why poll at all: a loop asleep in `epoll_wait` is woken by the kernel when a request arrives, and on a virtual
/// machine that wake-up (the halt, the interrupt, the scheduler) costs tens of microseconds, paid by the request.
/// Under load the next request usually comes within microseconds, so a loop that keeps asking a little longer finds
/// it awake. Why adapt: polling burns the CPU it waits on, which pays only when the wait is short. So the window
/// grows while idle stretches end within `limit` (a longer poll would have caught them) and halves when one runs
/// past it (the poll was wasted): a daemon serving sparse requests settles at no polling, one at full load at the
/// window its gaps need, never over `limit`. Unlike the governor, which counts only the time halted, a stretch here
/// is the poll and the sleep together: it grows a little sooner and shrinks a little sooner.
///
/// Why stop for a while: a poll is runnable, not asleep, so when another task wants the same CPU (a busy thread, a
/// neighbour process) the scheduler gives it whole slices and an arriving request waits them out, milliseconds
/// where a sleeping loop would have been woken at once. The loop yields between polls and reports each yield that
/// took long and let another task run (`yielded`). Their time adds up over an accounting period (a second); past
/// `busyBudget` of it another task wants this CPU, and polling stops for `pause`. A budget, not one long yield:
/// the kernel's own threads take the CPU for short turns many times a second (softirq and RCU work, some 10 µs
/// each; memory monitoring, a few milliseconds a few times a second), and each of those stopped polling for a whole
/// second when one yield past 20 µs did, so on a quiet virtual machine the loop polled almost never. A busy
/// neighbour takes a scheduler slice (a millisecond or more) at every yield and spends the budget within a few
/// dozen of them.
///
/// A value type with no clock of its own: the loop measures (nanoseconds on one monotonic clock), this decides.
/// Loop thread only.
public struct IdlePoll: Sendable, Equatable {
    /// The longest window, in nanoseconds; 0 turns polling off.
    public let limit: Int64
    /// The window grown so far, in nanoseconds (`window(at:)` is what the next stretch polls).
    public private(set) var grown: Int64 = 0
    /// Until when polling is stopped because another task wanted the CPU (`yielded`).
    public private(set) var pausedUntil = Int64.min
    /// When the current accounting period began, and the time other tasks took in this period's yields.
    public private(set) var periodStart = Int64.min
    public private(set) var othersInPeriod: Int64 = 0

    /// The smallest window that polls: a shorter one is not worth its system calls, so the window grows from here
    /// and falls to 0 below it; a `limit` under it turns polling off.
    public static let smallestWindow: Int64 = 10_000

    /// The default `limit`: it took the read row's p99 down by about a tenth on a virtual machine in its slow phases
    /// (runs alternated with nginx; README, "Event loop"), and a loop with gaps longer than it never polls.
    public static let defaultLimit = Duration.microseconds(200)

    /// The largest `limit` a configuration may set (10 ms): past it a loop would burn whole ticks.
    public static let largestLimit = Duration.milliseconds(10)

    /// A yield that kept the loop off the CPU longer than this (20 µs by default) gave it to a task that wanted it;
    /// the loop reports only those (telling whether another task ran is a system call).
    public let longYield: Int64
    /// How much of an accounting period other tasks may take in the loop's yields before polling stops (20 ms by
    /// default, 2 % of the CPU: the kernel's housekeeping on an idle virtual machine took under 2 ms a second, and
    /// a CPU-bound neighbour passes it within its first 20 or so slices).
    public let busyBudget: Int64
    /// The accounting period `busyBudget` is spent over (1 s).
    public static let period: Int64 = 1_000_000_000
    /// How long polling stays off once the budget is spent (1 s by default): the task that took the CPU is likely
    /// still there.
    public let pause: Int64

    /// `limit` is clamped to `largestLimit`; under `smallestWindow` (negative included) it is 0.
    public init(limit: Duration, longYield: Int64 = 20_000, busyBudget: Int64 = 20_000_000, pause: Int64 = 1_000_000_000) {
        let nanoseconds = min(limit.saturatingNanoseconds, Self.largestLimit.saturatingNanoseconds)
        self.limit = nanoseconds < Self.smallestWindow ? 0 : nanoseconds
        self.longYield = longYield
        self.busyBudget = busyBudget
        self.pause = pause
    }

    /// How long a stretch starting at `now` polls before it blocks (0: it blocks at once).
    public func window(at now: Int64) -> Int64 {
        now < pausedUntil ? 0 : grown
    }

    /// An idle stretch ended after `idle` nanoseconds (from its start to the event that ended it, blocked time
    /// included; `Int64.max` when the sleep timed out); `polling` says whether the poll found the event within its
    /// window. While paused the window does not grow.
    public mutating func idleEnded(after idle: Int64, foundWhilePolling polling: Bool, at now: Int64) {
        guard limit > 0, !polling else { return }
        if idle <= limit {
            // Woken soon after it gave up: a longer window would have found the event awake.
            guard now >= pausedUntil else { return }
            grown = min(limit, max(Self.smallestWindow, grown.multipliedReportingOverflow(by: 2).partialValue))
        } else {
            // A long stretch: the poll bought nothing.
            grown /= 2
            if grown < Self.smallestWindow { grown = 0 }
        }
    }

    /// A yield ending at `now` that let another task run kept the loop off the CPU for `yielded` nanoseconds. Past
    /// `longYield` it counts against this period's `busyBudget`; once the period's count passes the budget, polling
    /// stops for `pause`, its window back to nothing, and the count starts over.
    public mutating func yielded(_ yielded: Int64, at now: Int64) {
        guard yielded > longYield else { return }
        // A new period when none is running, when this one is over, or on a clock that went back (as tests' may).
        let elapsed = now.subtractingReportingOverflow(periodStart)
        if periodStart == .min || elapsed.overflow || elapsed.partialValue < 0 || elapsed.partialValue >= Self.period {
            periodStart = now
            othersInPeriod = 0
        }
        othersInPeriod = othersInPeriod.addingReportingOverflow(yielded).overflow ? .max : othersInPeriod + yielded
        guard othersInPeriod > busyBudget else { return }
        grown = 0
        othersInPeriod = 0
        periodStart = .min
        pausedUntil = now.addingReportingOverflow(pause).overflow ? .max : now + pause
    }
}
