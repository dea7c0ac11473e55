import Foundation

/// The append log's bookkeeping as a plain value: the queued records, who waits for which seq, the requested cut,
/// what is acknowledged, whether the log failed, the open segment and what in it is not yet fsynced.
///
/// It owns no thread, lock, clock or file. Its methods take what happened (a record appended, a flush asked for, a
/// write or fsync that returned, a tick of the clock at a given instant, a stop) and return what to do next as
/// data (write these bytes, fsync that descriptor, open the next segment, close a retired one, complete these
/// waiters with this result). `AppendLog` keeps one under its lock and performs the actions; the tests drive it
/// with scripted I/O results and instants.
///
/// `Waiter` is whatever the driver wants handed back once a seq is settled (a completion closure in the log, a
/// label in the tests).
struct GroupCommit<Waiter> {
    typealias Outcome = Result<UInt64, StorageFailure>

    /// A waiter whose seq is settled, and how.
    struct Completion {
        let seq: UInt64
        let waiter: Waiter
        let outcome: Outcome
    }

    /// A requested rotation: the records queued before `offset` end the current segment.
    struct Cut: Equatable {
        let offset: Int
        let firstSeqAfter: UInt64
        let ticket: Int
    }

    /// The segment records are written to. `fd` is -1 between retiring one segment and opening the next.
    struct Segment: Equatable {
        var fd: Int32
        var path: String
        /// Where the records end: the next write goes here.
        var bytes: Int
        /// Where the zeros reserved ahead of the records end (`FileSystem.reserve`); at most `bytes` when none are.
        var reserved = 0
    }

    /// A segment a rotation left behind, for the writer thread to fsync (when `dirty`) and close.
    struct Retired: Equatable {
        let fd: Int32
        let path: String
        let dirty: Bool
        /// The records' end, when zeros were reserved past it: cut there before the close.
        var truncateTo: Int? = nil
    }

    /// Zeros reserved ahead at a time: about ten thousand donations, so the one data sync that also commits the
    /// reservation's metadata comes once in that many.
    static var reserveChunk: Int { 1 << 20 }

    /// The largest batch buffer kept for the next batch (`spareBytes`).
    static var keptBatchCapacity: Int { 1 << 20 }

    let policy: FsyncPolicy
    let interval: Duration
    let segmentLimit: Int
    let directory: String

    var queued: [UInt8] = []
    var queuedLastSeq: UInt64 = 0
    var queuedRecords = 0
    /// Inline mode: a flusher found a large batch and left it to the writer thread.
    var handOffRequested = false
    /// Whether writes go into zeros reserved ahead (`FileSystem.reserve`): under the policies that sync, until the
    /// file system declines or fails once. Under `never` nothing syncs, and reserving would only write twice.
    var reservesSpace: Bool
    var cut: Cut?
    var waiters: [(seq: UInt64, waiter: Waiter)] = []
    var nextSeq: UInt64
    var acknowledgedSeq: UInt64
    var failure: StorageFailure?
    var rotationsRequested = 0
    var rotationsDone = 0
    var stopping = false
    var stopped = false
    var segment: Segment
    /// The newest record written but not yet fsynced in `segment` (0: clean).
    var unsyncedSeq: UInt64 = 0
    var lastSync: ContinuousClock.Instant
    var retiring: [Retired] = []
    /// The batch being written, between `beginFlush` and its last `advance`.
    var flight: Flight?
    /// The last batch's buffers, for the next batch to take emptied (`beginFlush`): emptying `queued` while its
    /// flight still held the bytes allocated a new buffer every batch, and a batch's plan grew its steps array two
    /// or three times.
    var spareBytes: [UInt8] = []
    var spareSteps: [Step] = []

    init(
        policy: FsyncPolicy, interval: Duration, segmentLimit: Int, directory: String, nextSeq: UInt64, segment: Segment,
        now: ContinuousClock.Instant, writersCommit: Bool = false
    ) {
        self.writersCommit = writersCommit
        self.policy = policy
        reservesSpace = policy != .never
        self.interval = interval
        self.segmentLimit = segmentLimit
        self.directory = directory
        self.nextSeq = nextSeq
        acknowledgedSeq = nextSeq - 1
        self.segment = segment
        lastSync = now
    }

    /// Under `always`, the writers flush (and fsync) their own records too, as under the other policies.
    let writersCommit: Bool

    /// Callers flush (`interval`, `never`, or `writersCommit`); else, under `always`, the writer thread does,
    /// fsyncing each write. Under `always` a batch is fsynced whoever writes it (`beginFlush`).
    var inline: Bool { policy != .always || writersCommit }

    static func segmentName(firstSeq: UInt64) -> String {
        let digits = String(firstSeq)
        return "segment-" + String(repeating: "0", count: max(0, 20 - digits.count)) + digits + ".log"
    }

    func segmentPath(firstSeq: UInt64) -> String {
        (directory as NSString).appendingPathComponent(Self.segmentName(firstSeq: firstSeq))
    }

    // MARK: - Inputs from writers

    /// Assigns the next seq and queues the record. Refused once the log failed or is stopping.
    mutating func append(_ payload: [UInt8]) throws(StorageFailure) -> UInt64 {
        try append { $0.bytes.append(contentsOf: payload) }
    }

    /// The same, the payload written by `payload` straight into the queue (`LogRecord.encode(seq:into:payload:)`).
    mutating func append(encoding payload: (inout BinaryWriter) -> Void) throws(StorageFailure) -> UInt64 {
        if let failure { throw failure }
        guard !stopping else { throw StorageFailure(IOError(call: "write", path: segment.path, code: EBADF)) }
        let seq = nextSeq
        nextSeq += 1
        LogRecord.encode(seq: seq, into: &queued, payload: payload)
        queuedLastSeq = seq
        queuedRecords += 1
        return seq
    }

    /// What a `flush(handingOffAbove:)` caller does.
    enum HandOff: Equatable {
        /// The batch is small: write it on this thread.
        case flushHere
        /// The batch is left to the writer thread; `wake` when this call is the one that asked for it.
        case leftToWriter(wake: Bool)
    }

    mutating func handOff(above limit: Int) -> HandOff {
        guard queuedRecords > limit else { return .flushHere }
        guard !handOffRequested else { return .leftToWriter(wake: false) }
        handOffRequested = true
        return .leftToWriter(wake: true)
    }

    /// Records `waiter` for `seq`, or returns its outcome at once when `seq` is settled already.
    mutating func register(_ seq: UInt64, _ waiter: Waiter) -> Outcome? {
        if seq <= acknowledgedSeq { return .success(seq) }
        if let failure { return .failure(failure) }
        waiters.append((seq, waiter))
        return nil
    }

    /// The records queued so far end the current segment; later ones start a new one. Returns the ticket.
    @discardableResult
    mutating func requestRotation() -> Int {
        rotationsRequested += 1
        if let pending = cut {
            // A cut not yet made stands and answers this request too: records up to this one may land after it,
            // which only delays their compaction.
            cut = Cut(offset: pending.offset, firstSeqAfter: pending.firstSeqAfter, ticket: rotationsRequested)
        } else {
            cut = Cut(offset: queued.count, firstSeqAfter: nextSeq, ticket: rotationsRequested)
        }
        return rotationsRequested
    }

    /// Whether a `waitForRotation(ticket)` caller may return: rotated, or nothing will rotate any more.
    func rotationSettled(_ ticket: Int) -> Bool { rotationsDone >= ticket || failure != nil || stopped }

    /// Records queued that no flusher has taken: whoever released the file lock flushes again.
    var hasUnflushed: Bool { !queued.isEmpty && failure == nil }

    /// Whether `beginFlush` would start a batch: records queued or a cut requested, and the log not failed.
    var hasWork: Bool { failure == nil && (!queued.isEmpty || cut != nil) }

    // MARK: - Settling

    /// Everything up to `seq` is in the file (and fsynced under `always`): acknowledge it.
    mutating func acknowledge(through seq: UInt64) -> Settled {
        var wake = false
        if policy != .always {
            // The writer sleeps while clean: the first dirty record starts its interval.
            if unsyncedSeq == 0, policy == .interval { wake = true }
            unsyncedSeq = seq
        }
        acknowledgedSeq = max(acknowledgedSeq, seq)
        var ready: [Completion] = []
        // Room for all at once: grown one append at a time, a batch of sixteen reallocated it five times.
        ready.reserveCapacity(waiters.count)
        waiters.removeAll { entry in
            guard entry.seq <= seq else { return false }
            ready.append(Completion(seq: entry.seq, waiter: entry.waiter, outcome: .success(entry.seq)))
            return true
        }
        return Settled(completions: Self.inSeqOrder(ready), failure: nil, wake: wake)
    }

    /// After a failed write or fsync nothing more is acknowledged: memory may be ahead of the disk. `failure` in
    /// the result is set only the first time, for the driver to report once.
    mutating func fail(_ error: StorageFailure) -> Settled {
        let first = failure == nil
        if first { failure = error }
        let failed = waiters.map { Completion(seq: $0.seq, waiter: $0.waiter, outcome: .failure(error)) }
        waiters.removeAll()
        queued.removeAll()
        queuedRecords = 0
        cut = nil
        flight = nil
        return Settled(completions: Self.inSeqOrder(failed), failure: first ? error : nil, wake: true)
    }

    /// Waiters register in whatever order their threads get the lock; they are told in seq order.
    private static func inSeqOrder(_ completions: [Completion]) -> [Completion] {
        // Read in place: the pairs a `zip` made were copies of both completions, each retaining its waiter.
        let ordered = completions.withUnsafeBufferPointer { buffer in
            buffer.indices.dropFirst().allSatisfy { buffer[$0 - 1].seq <= buffer[$0].seq }
        }
        guard !ordered else { return completions }
        return completions.enumerated().sorted { ($0.element.seq, $0.offset) < ($1.element.seq, $1.offset) }.map(\.element)
    }

    /// What a settled batch (or failure) leaves for the driver to do once its locks are released.
    struct Settled {
        var completions: [Completion]
        /// Set the first time the log fails: report it.
        var failure: StorageFailure?
        /// Wake the writer thread and everyone waiting on the log (a rotation done, a segment retired, a failure).
        var wake: Bool

        static var nothing: Settled { Settled(completions: [], failure: nil, wake: false) }
    }
}
