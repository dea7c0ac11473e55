#if canImport(Glibc)
import Synchronization

/// The tasks handed to an event loop from anywhere (`EventLoop.execute`), which the loop runs between its rounds.
///
/// Threads: `enqueue` and `hasPending` from any thread; `runQueued` from the loop's own thread only (it alone
/// touches `ran`, the list it ran last).
final class LoopTasks: @unchecked Sendable {
    /// A task as the list holds it. In a struct: a function stored as an array's element is kept in the generic
    /// form, and every task was wrapped in a thunk to that form, an allocation per task.
    private struct Queued {
        let run: @Sendable () -> Void
    }

    private let queued = Mutex<[Queued]>([])
    /// Whether `queued` holds any: set with the first task queued (under the list's lock), cleared when the loop
    /// takes them (under it too); read by the loop before it sleeps.
    private let pending = Atomic<Bool>(false)
    /// The list the loop ran last, emptied, swapped in for the queue's when the loop takes its tasks: emptying the
    /// list just handed out, keeping its room, allocated a new one every time the loop ran a task (each log
    /// batch's hand-back under `--fsync always`). Loop thread only, so the runtime's exclusivity checks (one per
    /// access) are left out.
    @exclusivity(unchecked) private var ran: [Queued] = []

    /// The most tasks whose room is kept between rounds (`ran`): a burst past it is not held on to.
    static let keptCapacity = 1024

    init() {}

    /// Queues `task`; returns whether it is the first one waiting (the loop may then need waking).
    func enqueue(_ task: @escaping @Sendable () -> Void) -> Bool {
        queued.withLock { tasks in
            tasks.append(Queued(run: task))
            if tasks.count == 1 { pending.store(true, ordering: .sequentiallyConsistent) }
            return tasks.count == 1
        }
    }

    /// Whether a task waits: sequentially consistent, as the loop's `mayBlock` handshake needs (see
    /// `EpollEventLoop.mayBlock`).
    var hasPending: Bool { pending.load(ordering: .sequentiallyConsistent) }

    /// How many tasks of the list `runQueued` runs come after the one running. Loop thread only.
    @exclusivity(unchecked) private var leftToRun = 0

    /// Whether a task waits, queued or taken by `runQueued` and not run yet. Loop thread only: asked from inside a
    /// task, `hasPending` misses the tasks taken with it (found by review).
    var hasWaiting: Bool { leftToRun > 0 || hasPending }

    /// Runs the queued tasks, and those they queue, until none is left. Returns whether it ran any. Loop thread only.
    @discardableResult
    func runQueued() -> Bool {
        var ranAny = false
        while true {
            let took = queued.withLock { tasks -> Bool in
                // Nothing queued is the common case, twice a round: answered without touching the list.
                if tasks.isEmpty { return false }
                pending.store(false, ordering: .relaxed)
                swap(&tasks, &ran)
                return true
            }
            if !took { return ranAny }
            ranAny = true
            for index in ran.indices {
                leftToRun = ran.count - index - 1
                ran[index].run()
            }
            leftToRun = 0
            // Emptied at once, so nothing a task captured outlives it; its room kept unless a burst made it large.
            ran.removeAll(keepingCapacity: ran.capacity <= Self.keptCapacity)
        }
    }
}
#endif
