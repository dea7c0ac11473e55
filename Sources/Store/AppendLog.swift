import CLinux
import Foundation
import Synchronization

/// The single-writer append log. Callers assign a seq and queue the encoded record under their own lock, so seq
/// order is log order; one flusher at a time writes whatever has queued with one `write` and acknowledges every
/// record that write covered.
///
/// Under `always` the flusher is a writer thread that fsyncs each write before acknowledging it (group commit).
/// Under `interval` and `never` a record is acknowledged once it is in the file, so callers flush themselves
/// (`flush`, after releasing their own locks): whoever gets the file lock writes everything queued, the others
/// leave their records to it. A lone writer thus pays no hand-off to another thread and back; busy ones still
/// share writes. The thread then only fsyncs on the interval and closes retired segments.
///
/// What to write, fsync, open and close, and whom to tell, is decided by a `GroupCommit` value kept under
/// `condition`; this class only holds the locks, runs the thread and makes the file calls it asks for.
///
/// Threads: the writer thread only makes writes durable. Completions of the batches it settles run on
/// `completions`, a serial queue, in batch order, so the next group commit never waits for what callers do with
/// an acknowledgement; a caller that flushed a batch itself (a loop at its round's end) runs that batch's
/// completions on its own thread, with no hop.
public final class AppendLog: @unchecked Sendable {
    public typealias Completion = @Sendable (Result<UInt64, StorageFailure>) -> Void
    /// A completion as the group commit holds it: a struct, because a function stored as a generic parameter is
    /// wrapped in a thunk to the generic form when registered and unwrapped when called, two allocations a write.
    struct Waiter: Sendable {
        let call: Completion
    }
    /// Work handed to `whileSyncing`, held as a struct for the same reason as `Waiter`: an array of functions
    /// stored each one wrapped in a thunk, an allocation a write.
    struct EarlyWork: Sendable {
        let run: @Sendable () -> Void
    }

    let directory: String
    let fileSystem: FileSystem
    let policy: FsyncPolicy
    let interval: Duration
    let segmentLimit: Int
    /// Runs a task later on the calling loop's thread (its task list), for a batch that loop left with its fsync
    /// out (`flushRoundHere`).
    public typealias RoundRunner = @Sendable (@escaping @Sendable () -> Void) -> Void

    let condition = NSCondition()
    // Guarded by `condition`, so the runtime's exclusivity checks (one per access, a dozen per batch) are left out:
    // the lock already keeps any two accesses apart.
    @exclusivity(unchecked) var state: GroupCommit<Waiter>
    /// Held by the one flusher writing: between `beginFlush` and the batch settled, nobody else flushes. A flag and
    /// not a lock, since a pipelined batch (`suspended`) is finished by a later task, or another thread.
    @exclusivity(unchecked) var flushing = false
    /// Threads waiting in `acquireFile`: only they are woken when the file is released.
    @exclusivity(unchecked) var fileWaiters = 0
    /// The batch whose fsync is out while its loop serves its sockets; it holds the file.
    @exclusivity(unchecked) var suspended: SuspendedFlush?
    var failureHandler: (@Sendable (StorageFailure) -> Void)?
    let fsyncCount = Atomic<Int>(0)
    /// `bytesWritten`: added to by whichever thread writes a batch.
    let writtenBytes = Atomic<Int>(0)
    /// Set under `condition` whenever a record or a cut is queued, and cleared under it by a round's end that finds
    /// nothing to write (`acquireFile`). A round's end first loads it: a round with no write, most of a read load's
    /// rounds, then ends there, where it took the lock (twice) and copied the bookkeeping to look, some 800
    /// instructions. A stale `false` seen on another thread only skips a record that its own thread flushes.
    let mayHaveWork = Atomic<Bool>(false)
    /// Threads that call `flush(handingOffAbove:)` at the end of each round (event loops); see `append`. Set once,
    /// before any write, by `wakeWriterAtRoundEnds`; read on every append, so no lock.
    @exclusivity(unchecked) nonisolated(unsafe) var roundThreads: (@Sendable () -> Bool)?
    /// Whether callers flush their records (`interval`, `never`, or `writersCommit`); else the writer thread does.
    let inline: Bool
    /// Where the writer thread's settled batches are completed.
    let completions = DispatchQueue(label: "specd.log.completions")
    /// The writer thread's id, set when it starts: `deliver` asks whether it runs there.
    let writerThread = Atomic<UInt>(0)
    /// A loop committing its own rounds under `always` (`writersCommit`): its fsyncs go to this thread while the
    /// loop does the work callers handed to `whileSyncing`.
    let fsyncThread: FsyncThread?
    /// Work to do before the acknowledgement it waits for, by whoever next waits for an fsync. Guarded by
    /// `condition`.
    @exclusivity(unchecked) var earlyWork: [EarlyWork] = []
    /// Under `always`, for a loop committing its own rounds: the runner for the calling thread's loop, `nil` off a
    /// loop. Set once, before any write (`pipelineRoundFsyncs`); read at each round's end, so no lock.
    @exclusivity(unchecked) nonisolated(unsafe) var roundRunner: (@Sendable () -> RoundRunner?)?
    /// Whether the calling loop has anything else ready (`pipelineRoundFsyncs`): asked when a batch's fsync could be
    /// left out. Set once with `roundRunner`.
    @exclusivity(unchecked) nonisolated(unsafe) var loopHasOtherWork: @Sendable () -> Bool = { true }
    /// How long recent batch fsyncs took, in nanoseconds (`noteFsync`), for a loop deciding whether to fsync
    /// itself (`fsyncHereLimit`).
    let recentFsync = Atomic<Int>(0)
    /// Batches still to be left out since one found work waiting (`keepsLeavingOut`). The pipelining loop's thread
    /// only.
    @exclusivity(unchecked) nonisolated(unsafe) var batchesLeftOut = 0

    /// Opens (or creates) the segment starting at `nextSeq` and starts the writer thread.
    public init(
        directory: String, fileSystem: FileSystem, policy: FsyncPolicy, nextSeq: UInt64, interval: Duration = .milliseconds(100),
        segmentLimit: Int = 64 << 20, appendTo existingSegment: String? = nil, writersCommit: Bool = false
    ) throws(IOError) {
        self.directory = directory
        self.fileSystem = fileSystem
        self.policy = policy
        self.interval = interval
        self.segmentLimit = segmentLimit
        var segment: GroupCommit<Waiter>.Segment
        if let existingSegment {
            segment = .init(fd: try fileSystem.openForAppend(existingSegment), path: existingSegment, bytes: fileSystem.size(existingSegment) ?? 0)
        } else {
            let path = (directory as NSString).appendingPathComponent(Self.segmentName(firstSeq: nextSeq))
            segment = .init(fd: try fileSystem.openForAppend(path), path: path, bytes: 0)
            try fileSystem.fsyncDirectory(directory)
        }
        state = GroupCommit(
            policy: policy, interval: interval, segmentLimit: segmentLimit, directory: directory, nextSeq: nextSeq,
            segment: segment, now: .now, writersCommit: writersCommit)
        inline = state.inline
        fsyncThread = writersCommit && policy == .always ? FsyncThread(fileSystem: fileSystem) : nil
        let thread = Thread { [self] in
            specd_name_current_thread("specd-log-write")
            writerLoop()
        }
        thread.start()
    }

    public static func segmentName(firstSeq: UInt64) -> String { GroupCommit<Waiter>.segmentName(firstSeq: firstSeq) }

    /// Records queued and not yet written: a round about to commit may gather more first.
    public var hasUnflushed: Bool { condition.withLock { inPlace { $0.hasUnflushed } } }

    /// Records queued that a round's end would commit now: none while a pipelined batch holds the file, since the
    /// round then leaves them to that batch's end (no point gathering more input for a commit that waits anyway).
    public var roundWouldCommit: Bool {
        guard mayHaveWork.load(ordering: .relaxed) else { return false }
        return condition.withLock { inPlace { $0.hasUnflushed } && !flushing }
    }

    /// The segment written now and where its written records end: every byte before it is in place (see
    /// `HistoryReader.liveSegment`). During a rotation it names the new segment, at 0, from before the file is
    /// created: a reader that lists the new file then reads none of it, not a record being written into its zeros
    /// (found in review: it answered `nil` until the open returned, and the reader read the new file whole).
    public var writtenEnd: (path: String, bytes: Int)? {
        condition.withLock { (state.segment.path, state.segment.bytes) }
    }

    /// The last seq handed out.
    public var lastSeq: UInt64 { condition.withLock { state.nextSeq - 1 } }
    public var fsyncs: Int { fsyncCount.load(ordering: .relaxed) }
    /// Bytes of records written to the segments since the log opened (whether synced or not).
    public var bytesWritten: Int { writtenBytes.load(ordering: .relaxed) }
    public var failed: StorageFailure? { condition.withLock { state.failure } }

    /// Called once, when the first write or fsync fails: the log has no logger of its own, its owner reports it.
    public var onFailure: (@Sendable (StorageFailure) -> Void)? {
        get { condition.withLock { failureHandler } }
        set { condition.withLock { failureHandler = newValue } }
    }

    /// Assigns the next seq and queues the record. Call it while holding whatever orders your writes: the seq
    /// order is the order in the file. Under `interval` and `never`, call `flush` once your locks are released.
    public func append(_ payload: [UInt8]) throws(StorageFailure) -> UInt64 {
        try append { $0.bytes.append(contentsOf: payload) }
    }

    /// The same for a mutation, encoded straight into the queued batch under the lock.
    func append(_ mutation: Mutation) throws(StorageFailure) -> UInt64 {
        try append { MutationCodec.encode(mutation, into: &$0) }
    }

    private func append(encoding payload: (inout BinaryWriter) -> Void) throws(StorageFailure) -> UInt64 {
        condition.lock()
        defer { condition.unlock() }
        let seq = try state.append(encoding: payload)
        mayHaveWork.store(true, ordering: .relaxed)
        // Under `always`, a thread that flushes at its round's end wakes the writer once then, for the whole
        // round: woken per record, the writer would take (and fsync) batches of one, and on a shared core preempt
        // the loop each time.
        if !inline, !(roundThreads?() ?? false) { condition.signal() }
        return seq
    }

    /// Inline mode: writes what has queued, unless another thread is writing — it then writes ours after its own.
    /// Completions of every record written run here, on this thread, so call it holding no lock they may need.
    public func flush() {
        guard inline else { return }
        flushQueued(waitForLock: false)
    }

    /// A batch above this many records is left to the writer thread by `flush(handingOffAbove:)` callers here.
    public static let handOffAbove = 4

    /// Inline mode, for a thread with more work waiting (an event loop at the end of a busy round) or with many
    /// others writing: a small batch is written here at once; a larger one goes to the writer thread, which then
    /// writes big batches while this thread gets back to its work and the completions run on another core.
    public func flush(handingOffAbove limit: Int) {
        guard mayHaveWork.load(ordering: .relaxed) else { return }
        guard inline else {
            condition.withLock {
                if inPlace({ $0.hasUnflushed }) {
                    condition.signal()
                } else if !inPlace({ $0.hasWork }) {
                    // The writer thread takes the batches here: the round's end notes that it found none.
                    mayHaveWork.store(false, ordering: .relaxed)
                }
            }
            return
        }
        let handOff = condition.withLock { () -> GroupCommit<Waiter>.HandOff in
            let handOff = state.handOff(above: limit)
            if handOff == .leftToWriter(wake: true) { condition.signal() }
            return handOff
        }
        if handOff == .flushHere { flushQueued(waitForLock: false) }
    }

    /// For a process with one CPU (`writersCommit`): the round's batch is written here, fsynced here under
    /// `always`, and its completions run here, so a round's writes are answered by the thread that took them and
    /// no other thread is woken. That is Redis's way (its loop writes, and under `always` fsyncs, before it
    /// replies); on one CPU a writer thread only takes turns with the loop and adds two hand-offs per batch.
    /// Another thread holding the file meanwhile writes this batch after its own (`flushQueued`). Without
    /// `writersCommit`, under `always`, the batch is left to the writer thread as `flush(handingOffAbove:)` does.
    ///
    /// Two batches at most: what other loops queue meanwhile goes to the writer thread, so no loop is kept from its
    /// own connections committing everyone else's writes.
    ///
    /// Pipelined (`pipelineRoundFsyncs`, under `always`): the loop writes the batch, hands its fsync to the fsync
    /// thread, does the `whileSyncing` work, and returns to its sockets instead of waiting for the disk. The batch
    /// holds the file until the fsync thread hands the result back to the loop (a task), which acknowledges the
    /// batch there; the rounds meanwhile queue their records, and that task writes them as the next batch before
    /// it runs the first one's completions. So the CPU serves the next requests while the disk syncs, where Redis's
    /// loop (and ours before) waited.
    public func flushRoundHere() {
        guard mayHaveWork.load(ordering: .relaxed) else { return }
        guard inline else { return flush(handingOffAbove: 0) }
        if !flushQueued(waitForLock: false, passes: 2, runners: roundRunner) {
            condition.withLock {
                if state.handOff(above: 0) == .leftToWriter(wake: true) { condition.signal() }
            }
        }
    }

    /// Under `always` with `writersCommit`: a round's batch is acknowledged by a later task on its loop, which
    /// `runner` gives for the calling thread (`nil` off a loop), instead of the round waiting for its fsync (see
    /// `flushRoundHere`). Call before any write, with the number of loops: declined for more than one. A batch's
    /// end starts the next batch with whatever is queued, whichever loop queued it, so with several loops one of
    /// them would commit (and answer) every other's writes, batch after batch, where `flushRoundHere` bounds that
    /// to two batches.
    ///
    /// `otherWorkReady` says whether the calling loop has work that would wait if it blocked (replies its round
    /// made, a task handed over). Leaving the fsync out pays only then. With none, the loop would sleep until the
    /// fsync thread handed the batch back, and the two threads' hand-offs on a core shared with the loop cost some
    /// four context switches a batch more than the loop's own sleep. So the loop fsyncs the batch itself, as Redis
    /// does (`fsyncHere`): it starts the batch's writeback, does the `whileSyncing` work while the pages go out, and
    /// waits for the rest, with no other thread woken.
    public func pipelineRoundFsyncs(
        loops: Int, runner: @escaping @Sendable () -> RoundRunner?, otherWorkReady: @escaping @Sendable () -> Bool = { true }
    ) {
        guard fsyncThread != nil, loops == 1 else { return }
        roundRunner = runner
        loopHasOtherWork = otherWorkReady
    }

    /// Threads for which `isRoundThread` holds promise to call `flush(handingOffAbove:)` after each round: under
    /// `always` their records wake the writer then, once per round. Call before any write.
    public func wakeWriterAtRoundEnds(isRoundThread: @escaping @Sendable () -> Bool) {
        roundThreads = isRoundThread
    }

    /// Whether `whileSyncing` work can run while an fsync is out (a loop committing its own rounds under `always`).
    public var runsWorkWhileSyncing: Bool { fsyncThread != nil }

    /// Work a caller would otherwise do once a record is acknowledged, and which needs no acknowledgement: a loop
    /// committing its round runs it while that round's fsync is out, so the disk and the CPU work at once. It must
    /// not call back into the log, and whoever waits for its result must be ready to do it themselves: it may run
    /// after the acknowledgement (an fsync that settles a record may have started before the record's work was
    /// handed over) or never (the writer thread drops it, as does a log without `runsWorkWhileSyncing`).
    public func whileSyncing(_ work: @escaping @Sendable () -> Void) {
        guard fsyncThread != nil else { return }
        condition.withLock { earlyWork.append(EarlyWork(run: work)) }
    }

    /// Calls `completion` once `seq` is acknowledged under the policy, or failed. May call it at once.
    public func whenAcknowledged(_ seq: UInt64, _ completion: @escaping Completion) {
        let settled = condition.withLock { state.register(seq, Waiter(call: completion)) }
        if let settled { completion(settled) }
    }

    /// Blocks until `seq` is acknowledged; for tests, benchmarks and shutdown.
    public func waitAcknowledged(_ seq: UInt64) throws(StorageFailure) {
        flush(handingOffAbove: Self.handOffAbove)
        let done = DispatchSemaphore(value: 0)
        let outcome = Mutex<Result<UInt64, StorageFailure>?>(nil)
        whenAcknowledged(seq) { result in
            outcome.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        if case .failure(let failure)? = outcome.withLock({ $0 }) { throw failure }
    }

    /// The records queued so far will end the current segment; later ones start a new one. Returns a ticket
    /// for `waitForRotation`. Call it holding whatever orders writes, so the cut is exact.
    @discardableResult
    public func requestRotation() -> Int {
        condition.withLock {
            condition.signal()
            mayHaveWork.store(true, ordering: .relaxed)
            return state.requestRotation()
        }
    }

    /// Blocks until the rotation with that ticket happened (or the log failed or stopped).
    public func waitForRotation(_ ticket: Int) {
        condition.lock()
        while !state.rotationSettled(ticket) { condition.wait() }
        condition.unlock()
    }

    /// Writes what is queued, fsyncs and stops the writer.
    public func close() {
        condition.lock()
        state.stop()
        condition.signal()
        while !state.stopped { condition.wait() }
        earlyWork.removeAll()
        condition.unlock()
        fsyncThread?.stop()
    }
}
