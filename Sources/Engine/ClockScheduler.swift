import Rules

/// A min-heap of future instants: when each subscribed user's flags may next change with no write. (Delayed trigger
/// fires keep their own due order, in `PendingFires`.) Pure (the caller says what time it is), so tests drive it
/// with a virtual clock.
struct ClockScheduler {
    /// Keyed by bytes (`ByteKey`): a `String` payload would hash and compare by canonical equivalence, so NFC and
    /// NFD spellings of one id (two users) would share, and replace, each other's job.
    enum Job: Hashable {
        case reevaluate(user: ByteKey)
    }

    /// An entry of the heap, ordered by instant; stale once its job was replaced or cancelled (`tokens`).
    private struct Entry: Comparable {
        let at: Instant
        let job: Job
        let token: Int

        static func < (a: Entry, b: Entry) -> Bool { a.at < b.at }
        static func == (a: Entry, b: Entry) -> Bool { a.at == b.at }
    }

    private var heap = MinHeap<Entry>()
    /// The live token of each job; heap entries with an older token are stale and skipped.
    private var tokens: [Job: Int] = [:]
    private var nextToken = 0

    var isEmpty: Bool { tokens.isEmpty }
    var count: Int { tokens.count }
    /// Jobs past which the owner sweeps out those nobody hears any more (`Timekeeper.dropUnheardJobs`): twice what
    /// the last sweep kept, so the sweeps cost O(1) a schedule.
    var sweepAt = 1024

    /// Every job with its live token, for a sweep that asks about each one without holding the caller's lock.
    var jobs: [(job: Job, token: Int)] { tokens.map { ($0.key, $0.value) } }

    /// Cancels `job` only if it was not scheduled again since `token` was read.
    mutating func cancel(_ job: Job, ifStill token: Int) {
        if tokens[job] == token { tokens[job] = nil }
    }

    /// Schedules `job` at `at`, replacing any earlier schedule of the same job.
    mutating func schedule(_ job: Job, at: Instant) {
        // Replaced jobs leave stale heap entries; rebuild when they dominate so the heap tracks the live jobs.
        if heap.count > 1024, heap.count > 4 * tokens.count { heap.retain { tokens[$0.job] == $0.token } }
        nextToken += 1
        tokens[job] = nextToken
        heap.insert(Entry(at: at, job: job, token: nextToken))
    }

    mutating func cancel(_ job: Job) {
        tokens[job] = nil
    }

    func isScheduled(_ job: Job) -> Bool { tokens[job] != nil }

    /// The earliest live instant.
    mutating func nextDue() -> Instant? {
        dropStale()
        return heap.first?.at
    }

    /// Removes and returns every live job due at or before `now`, earliest first.
    mutating func popDue(now: Instant) -> [(at: Instant, job: Job)] {
        // Labelled as the result: an unlabelled tuple array was converted element by element on return.
        var due: [(at: Instant, job: Job)] = []
        while true {
            dropStale()
            guard let top = heap.first, top.at <= now else { return due }
            heap.removeFirst()
            tokens[top.job] = nil
            due.append((at: top.at, job: top.job))
        }
    }

    private mutating func dropStale() {
        while let top = heap.first, tokens[top.job] != top.token { heap.removeFirst() }
    }
}
