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
/// neighbour process, the daemon's own snapshot writer) the scheduler gives it whole slices and an arriving request
/// waits them out, milliseconds where a sleeping loop would have been woken at once. The loop yields between polls and
/// reports each yield past `longYield` that let another task run (`yielded`). Their time adds up over a short
/// accounting period (50 ms from the first one counted); past `busyBudget` (5 ms) another task wants this CPU, and
/// polling stops for `pause`. A budget, not one long yield: under full load the kernel's own threads take the CPU now
/// and then (softirq and RCU work, about 10 µs at a time, some of whose yields run past 20 µs; memory monitoring, 1–4
/// ms about three times a second on the test host). When one yield past 20 µs stopped polling for a second, the loop
/// under full load slept some 5 000 times a second; it now sleeps a few times a second. A small budget over a short
/// period: every millisecond the loop waits behind a neighbour holds up the requests that arrive meanwhile, and a
/// budget of 20 ms a second would hold up 2 % of them, past the p99. A busy neighbour takes a scheduler slice (0.75 ms
/// or more) at every yield and spends the budget within a handful of them. If it is still there when polling resumes
/// (the budget spent again within `pause` of the pause's end), the next pause is twice as long, up to `longestPause`,
/// so a neighbour that stays costs the loop's requests some 5 ms of waits every 16 s.
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
    /// When the current accounting period began (`Int64.min`: none is running).
    public private(set) var periodStart = Int64.min
    /// The time other tasks took in this period's counted yields.
    public private(set) var othersInPeriod: Int64 = 0
    /// The pause the budget's next spending takes if the neighbour stayed: twice the last one, up to
    /// `longestPause` (see `yielded`).
    public private(set) var nextPause: Int64

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
    /// How much of an accounting period other tasks may take in the loop's counted yields before polling stops
    /// (5 ms by default, a tenth of the period: more than the kernel's longest housekeeping turn seen under full
    /// load, 4 ms, and a CPU-bound neighbour spends it within a handful of slices).
    public let busyBudget: Int64
    /// The accounting period `busyBudget` is spent over (50 ms). Fixed periods, each starting at its first counted
    /// yield, not a sliding window: just under the budget at the end of one and the start of the next pass.
    public static let period: Int64 = 50_000_000
    /// How long polling stays off the first time the budget is spent (1 s by default): the task that took the CPU
    /// is likely still there.
    public let pause: Int64
    /// The longest pause a neighbour that stays doubles it to (16 s, or `pause` if that is longer).
    public static let longestPause: Int64 = 16_000_000_000

    /// `limit` is clamped to `largestLimit`; under `smallestWindow` (negative included) it is 0. Negative durations
    /// are taken as 0.
    public init(limit: Duration, longYield: Int64 = 20_000, busyBudget: Int64 = 5_000_000, pause: Int64 = 1_000_000_000) {
        let nanoseconds = min(limit.saturatingNanoseconds, Self.largestLimit.saturatingNanoseconds)
        self.limit = nanoseconds < Self.smallestWindow ? 0 : nanoseconds
        self.longYield = max(0, longYield)
        self.busyBudget = max(0, busyBudget)
        self.pause = max(0, pause)
        self.nextPause = max(0, pause)
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

    /// A yield ending at `now` that let another task run kept the loop off the CPU for `yielded` nanoseconds (the
    /// whole yield, the loop's own system call included). Past `longYield` it counts against this period's
    /// `busyBudget`; once the period's count passes the budget, polling stops, its window back to nothing, and the
    /// count starts over. The pause is `pause`, or twice the last one (up to `longestPause`) when the budget was
    /// spent within `pause` of the last pause's end: the neighbour stayed.
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
        let sinceLastPause = now.subtractingReportingOverflow(pausedUntil)
        let neighbourStayed =
            pausedUntil != .min && !sinceLastPause.overflow && sinceLastPause.partialValue >= 0
            && sinceLastPause.partialValue < pause
        let longest = max(pause, Self.longestPause)
        let length = neighbourStayed ? nextPause : pause
        nextPause = min(longest, length.multipliedReportingOverflow(by: 2).overflow ? longest : length * 2)
        grown = 0
        othersInPeriod = 0
        periodStart = .min
        pausedUntil = now.addingReportingOverflow(length).overflow ? .max : now + length
    }
}
