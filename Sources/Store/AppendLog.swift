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
public final class AppendLog: @unchecked Sendable {
    public typealias Completion = @Sendable (Result<UInt64, StorageFailure>) -> Void

    struct Waiter {
        let seq: UInt64
        let completion: Completion
    }

    /// A requested rotation: the records queued before `offset` end the current segment.
    struct Cut {
        let offset: Int
        let firstSeqAfter: UInt64
        let ticket: Int
    }

    let directory: String
    let fileSystem: FileSystem
    let policy: FsyncPolicy
    let interval: Duration
    let segmentLimit: Int
    /// Callers flush (`interval`, `never`); otherwise the writer thread does.
    private let inline: Bool
    /// Held by the one flusher writing (inline mode).
    private let fileLock = NSLock()

    private let condition = NSCondition()
    // Guarded by `condition`.
    private var queued: [UInt8] = []
    private var queuedLastSeq: UInt64 = 0
    private var queuedRecords = 0
    /// Inline mode: a flusher found a large batch and left it to the writer thread.
    private var handOffRequested = false
    private var cut: Cut?
    private var waiters: [Waiter] = []
    private var nextSeq: UInt64
    private var acknowledgedSeq: UInt64
    private var failure: StorageFailure?
    private var failureHandler: (@Sendable (StorageFailure) -> Void)?
    private var rotationsRequested = 0
    private var rotationsDone = 0
    private var stopping = false
    private var stopped = false
    private var fd: Int32 = -1
    private var segmentPath = ""
    private var segmentBytes = 0
    private var unsyncedSeq: UInt64 = 0
    private var lastSync = ContinuousClock.now
    /// Segments a rotation left behind, for the writer thread to sync and close.
    private var retiring: [(fd: Int32, path: String, dirty: Bool)] = []
    private let fsyncCount = Atomic<Int>(0)

    /// Opens (or creates) the segment starting at `nextSeq` and starts the writer thread.
    public init(directory: String, fileSystem: FileSystem, policy: FsyncPolicy, nextSeq: UInt64, interval: Duration = .milliseconds(100),
                segmentLimit: Int = 64 << 20, appendTo existingSegment: String? = nil) throws(IOError) {
        self.directory = directory
        self.fileSystem = fileSystem
        self.policy = policy
        self.interval = interval
        self.segmentLimit = segmentLimit
        inline = policy != .always
        self.nextSeq = nextSeq
        acknowledgedSeq = nextSeq - 1
        if let existingSegment {
            segmentPath = existingSegment
            fd = try fileSystem.openForAppend(existingSegment)
            segmentBytes = fileSystem.size(existingSegment) ?? 0
        } else {
            try openSegment(firstSeq: nextSeq)
        }
        let thread = Thread { [self] in writerLoop() }
        thread.name = "specd-log-writer"
        thread.start()
    }

    public static func segmentName(firstSeq: UInt64) -> String {
        let digits = String(firstSeq)
        return "segment-" + String(repeating: "0", count: max(0, 20 - digits.count)) + digits + ".log"
    }

    /// The last seq handed out.
    public var lastSeq: UInt64 { condition.withLock { nextSeq - 1 } }
    public var fsyncs: Int { fsyncCount.load(ordering: .relaxed) }
    public var failed: StorageFailure? { condition.withLock { failure } }

    /// Called once, when the first write or fsync fails: the log has no logger of its own, its owner reports it.
    public var onFailure: (@Sendable (StorageFailure) -> Void)? {
        get { condition.withLock { failureHandler } }
        set { condition.withLock { failureHandler = newValue } }
    }

    /// Assigns the next seq and queues the record. Call it while holding whatever orders your writes: the seq
    /// order is the order in the file. Under `interval` and `never`, call `flush` once your locks are released.
    public func append(_ payload: [UInt8]) throws(StorageFailure) -> UInt64 {
        condition.lock()
        defer { condition.unlock() }
        if let failure { throw failure }
        guard !stopping else { throw StorageFailure(IOError(call: "write", path: segmentPath, code: EBADF)) }
        let seq = nextSeq
        nextSeq += 1
        LogRecord.encode(seq: seq, payload: payload, into: &queued)
        queuedLastSeq = seq
        queuedRecords += 1
        if !inline { condition.signal() }
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
        guard inline else { return }
        let large = condition.withLock { () -> Bool in
            guard queuedRecords > limit else { return false }
            if !handOffRequested {
                handOffRequested = true
                condition.signal()
            }
            return true
        }
        if !large { flushQueued(waitForLock: false) }
    }

    /// Every thread that held the file lock checks the queue again after releasing it: a record queued by a
    /// thread that could not get the lock is then never left behind.
    private func flushQueued(waitForLock: Bool) {
        var wait = waitForLock
        while true {
            if wait { fileLock.lock() } else if !fileLock.try() { return }
            let ready = drainQueue()
            fileLock.unlock()
            complete(ready)
            guard condition.withLock({ !queued.isEmpty && failure == nil }) else { return }
            // From here on, a thread holding the lock will look again after us.
            wait = false
        }
    }

    /// Calls `completion` once `seq` is acknowledged under the policy, or failed. May call it at once.
    public func whenAcknowledged(_ seq: UInt64, _ completion: @escaping Completion) {
        condition.lock()
        if seq <= acknowledgedSeq {
            condition.unlock()
            completion(.success(seq))
            return
        }
        if let failure {
            condition.unlock()
            completion(.failure(failure))
            return
        }
        waiters.append(Waiter(seq: seq, completion: completion))
        condition.unlock()
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
            rotationsRequested += 1
            if let pending = cut {
                // A cut not yet made stands and answers this request too: records up to this one may land after
                // it, which only delays their compaction.
                cut = Cut(offset: pending.offset, firstSeqAfter: pending.firstSeqAfter, ticket: rotationsRequested)
            } else {
                cut = Cut(offset: queued.count, firstSeqAfter: nextSeq, ticket: rotationsRequested)
            }
            condition.signal()
            return rotationsRequested
        }
    }

    /// Blocks until the rotation with that ticket happened (or the log failed or stopped).
    public func waitForRotation(_ ticket: Int) {
        condition.lock()
        while rotationsDone < ticket, failure == nil, !stopped { condition.wait() }
        condition.unlock()
    }

    /// Writes what is queued, fsyncs and stops the writer.
    public func close() {
        condition.lock()
        stopping = true
        condition.signal()
        while !stopped { condition.wait() }
        condition.unlock()
    }

    // MARK: - Flushing (one flusher at a time)

    /// Writes everything queued — up to a requested cut into the current segment, the rest into a new one —
    /// fsyncs under `always`, and returns the waiters now acknowledged (or failed), for the caller to complete
    /// outside every lock.
    private func drainQueue() -> [(Waiter, Result<UInt64, StorageFailure>)] {
        condition.lock()
        guard failure == nil, !queued.isEmpty || cut != nil else {
            condition.unlock()
            return []
        }
        let batch = queued
        let batchLastSeq = queuedLastSeq
        let pendingCut = cut
        queued.removeAll(keepingCapacity: batch.count < 1 << 20)
        queuedRecords = 0
        cut = nil
        condition.unlock()
        // `fd`, `segmentPath` and `segmentBytes` change only here, under the file lock: read without `condition`.
        do throws(IOError) {
            var start = 0
            if let pendingCut {
                if pendingCut.offset > 0 { try write(Array(batch[0..<pendingCut.offset])) }
                start = pendingCut.offset
                try startNextSegment(firstSeq: pendingCut.firstSeqAfter, oldHasNewRecords: pendingCut.offset > 0)
                condition.withLock {
                    rotationsDone = max(rotationsDone, pendingCut.ticket)
                    condition.broadcast()
                }
            }
            if start < batch.count { try write(start == 0 ? batch : Array(batch[start...])) }
            if policy == .always {
                try fileSystem.fsync(fd, path: segmentPath)
                fsyncCount.add(1, ordering: .relaxed)
            }
            if segmentBytes >= segmentLimit { try startNextSegment(firstSeq: batchLastSeq + 1, oldHasNewRecords: policy != .always) }
        } catch {
            return fail(StorageFailure(error))
        }
        return acknowledge(through: batchLastSeq)
    }

    private func write(_ bytes: [UInt8]) throws(IOError) {
        try fileSystem.writeAll(fd, bytes, path: segmentPath)
        segmentBytes += bytes.count
    }

    /// Later records go to a new segment; the writer thread syncs and closes the old one. Under `always` the old
    /// one is synced here, before anything in it is acknowledged.
    private func startNextSegment(firstSeq: UInt64, oldHasNewRecords: Bool) throws(IOError) {
        if policy == .always, oldHasNewRecords {
            try fileSystem.fsync(fd, path: segmentPath)
            fsyncCount.add(1, ordering: .relaxed)
        }
        condition.lock()
        defer { condition.unlock() }
        retiring.append((fd, segmentPath, policy != .always && (oldHasNewRecords || unsyncedSeq > 0)))
        fd = -1
        unsyncedSeq = 0
        condition.signal()
        try openSegment(firstSeq: firstSeq)
    }

    /// One lock for everything a write settles: what is now unsynced, what is acknowledged, whom to tell.
    private func acknowledge(through seq: UInt64) -> [(Waiter, Result<UInt64, StorageFailure>)] {
        condition.withLock {
            if policy == .always {
                lastSync = .now
            } else {
                // The writer sleeps while clean: the first dirty record starts its interval.
                if unsyncedSeq == 0, policy == .interval { condition.signal() }
                unsyncedSeq = seq
            }
            acknowledgedSeq = max(acknowledgedSeq, seq)
            var ready: [(Waiter, Result<UInt64, StorageFailure>)] = []
            waiters.removeAll { waiter in
                guard waiter.seq <= seq else { return false }
                ready.append((waiter, .success(waiter.seq)))
                return true
            }
            return ready
        }
    }

    /// After a failed write or fsync nothing more is acknowledged: memory may be ahead of the disk (DESIGN §7).
    private func fail(_ error: StorageFailure) -> [(Waiter, Result<UInt64, StorageFailure>)] {
        let (failed, report) = condition.withLock { () -> ([(Waiter, Result<UInt64, StorageFailure>)], (@Sendable (StorageFailure) -> Void)?) in
            let first = failure == nil
            if first { failure = error }
            let failed = waiters.map { ($0, Result<UInt64, StorageFailure>.failure(error)) }
            waiters.removeAll()
            queued.removeAll()
            queuedRecords = 0
            cut = nil
            condition.broadcast()
            return (failed, first ? failureHandler : nil)
        }
        // Outside the lock: the handler logs, and may ask the log for its state.
        report?(error)
        return failed
    }

    private func complete(_ ready: [(Waiter, Result<UInt64, StorageFailure>)]) {
        for (waiter, result) in ready { waiter.completion(result) }
    }

    private func openSegment(firstSeq: UInt64) throws(IOError) {
        segmentPath = (directory as NSString).appendingPathComponent(Self.segmentName(firstSeq: firstSeq))
        fd = try fileSystem.openForAppend(segmentPath)
        segmentBytes = 0
        try fileSystem.fsyncDirectory(directory)
    }

    // MARK: - Writer thread

    /// Under `always`: the flusher. Otherwise: fsyncs on the interval, makes rotations nobody flushed, closes
    /// retired segments, and writes what is left at the stop.
    private func writerLoop() {
        while true {
            condition.lock()
            while !stopping, retiring.isEmpty, cut == nil, !handOffRequested, !(!inline && !queued.isEmpty) {
                if policy == .interval, unsyncedSeq > 0, failure == nil {
                    let due = lastSync + interval
                    if ContinuousClock.now >= due { break }
                    let wait = due - ContinuousClock.now
                    _ = condition.wait(until: Date().addingTimeInterval(Double(wait.components.seconds) + Double(wait.components.attoseconds) / 1e18))
                } else {
                    condition.wait()
                }
            }
            let stop = stopping
            let drain = stop || cut != nil || handOffRequested || !inline
            handOffRequested = false
            condition.unlock()
            if drain { flushQueued(waitForLock: true) }
            condition.lock()
            let retired = retiring
            retiring.removeAll()
            let healthy = failure == nil
            let dirty = healthy && unsyncedSeq > 0 && (stop || policy == .interval && ContinuousClock.now >= lastSync + interval)
            let dirtySeq = unsyncedSeq, syncFD = fd, syncPath = segmentPath
            condition.unlock()
            do throws(IOError) {
                for segment in retired {
                    if segment.dirty, healthy {
                        try fileSystem.fsync(segment.fd, path: segment.path)
                        fsyncCount.add(1, ordering: .relaxed)
                    }
                    fileSystem.close(segment.fd)
                }
                // Outside the lock: appenders go on writing while the disk catches up. Only this thread closes
                // descriptors, so `syncFD` stays valid even if a flusher rotated meanwhile.
                if dirty {
                    try fileSystem.fsync(syncFD, path: syncPath)
                    fsyncCount.add(1, ordering: .relaxed)
                    condition.withLock {
                        if unsyncedSeq == dirtySeq { unsyncedSeq = 0 }
                        lastSync = .now
                    }
                }
            } catch {
                complete(fail(StorageFailure(error)))
            }
            if stop {
                finishStopping()
                return
            }
        }
    }

    private func finishStopping() {
        condition.lock()
        if fd >= 0 { fileSystem.close(fd) }
        fd = -1
        for segment in retiring { fileSystem.close(segment.fd) }
        retiring.removeAll()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }
}
