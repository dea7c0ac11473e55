import Foundation
import Synchronization

/// When a write is acknowledged (DESIGN §7).
public enum FsyncPolicy: String, Sendable, CaseIterable {
    /// After the fsync that covers it; concurrent writers share one fsync (group commit).
    case always
    /// After the write reaches the file; fsync runs every interval, so a crash may lose that window.
    case interval
    /// After the write reaches the file; never fsynced by us (tests, benchmarks).
    case never
}

/// The single-writer append log. Callers assign a seq under their own lock, so seq order is log order.
///
/// Under `always`, records queue and one writer thread drains whatever has queued with one `write` and one
/// `fsync`, then acknowledges every record that flush covered (group commit). Under `interval` and `never` a write
/// is acknowledged once it reaches the file, so the caller writes its record itself, under the log's lock: no
/// hand-off to another thread and back on the path of every write. The writer thread then only fsyncs on the
/// interval and rotates segments.
public final class AppendLog: @unchecked Sendable {
    public typealias Completion = @Sendable (Result<UInt64, StorageFailure>) -> Void

    struct Waiter {
        let seq: UInt64
        let completion: Completion
    }

    let directory: String
    let fileSystem: FileSystem
    let policy: FsyncPolicy
    let interval: Duration
    let segmentLimit: Int

    private let condition = NSCondition()
    // Guarded by `condition`.
    private var queued: [UInt8] = []
    private var queuedLastSeq: UInt64 = 0
    private var waiters: [Waiter] = []
    private var nextSeq: UInt64
    private var acknowledgedSeq: UInt64
    private var failure: StorageFailure?
    private var rotationRequested = false
    private var rotationsRequested = 0
    private var rotationsDone = 0
    private var stopping = false
    private var stopped = false
    /// Callers write their own records (`interval`, `never`).
    private let inline: Bool
    /// Inline mode: an encoded record, reused (guarded by `condition`).
    private var scratch: [UInt8] = []
    /// Inline mode: segments a rotation left behind, for the writer thread to sync and close.
    private var retiring: [(fd: Int32, path: String, dirty: Bool)] = []
    // Writer thread only under `always`; guarded by `condition` in inline mode (appenders write through them).
    private var fd: Int32 = -1
    private var segmentPath = ""
    private var segmentBytes = 0
    // Writer thread only (guarded by `condition` in inline mode).
    private var unsyncedSeq: UInt64 = 0
    private var lastSync = ContinuousClock.now
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
        writtenThrough = nextSeq - 1
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

    /// Assigns the next seq and queues the record. Call it while holding whatever orders your writes: the seq
    /// order is the order in the file.
    public func append(_ payload: [UInt8]) throws(StorageFailure) -> UInt64 {
        condition.lock()
        defer { condition.unlock() }
        if let failure { throw failure }
        guard !stopping else { throw StorageFailure(IOError(call: "write", path: segmentPath, code: EBADF)) }
        let seq = nextSeq
        nextSeq += 1
        guard inline else {
            LogRecord.encode(seq: seq, payload: payload, into: &queued)
            queuedLastSeq = seq
            condition.signal()
            return seq
        }
        scratch.removeAll(keepingCapacity: scratch.capacity <= 65_536)
        LogRecord.encode(seq: seq, payload: payload, into: &scratch)
        do {
            try fileSystem.writeAll(fd, scratch, path: segmentPath)
        } catch {
            // The record may be torn on disk; nothing after it is written, so recovery cuts it off.
            let failure = StorageFailure(error)
            self.failure = failure
            condition.broadcast()
            throw failure
        }
        segmentBytes += scratch.count
        writtenThrough = seq
        acknowledgedSeq = seq
        // The writer sleeps while clean: the first dirty record starts its interval.
        if unsyncedSeq == 0 { condition.signal() }
        unsyncedSeq = seq
        if segmentBytes >= segmentLimit {
            do {
                try startNextSegmentLocked()
            } catch {
                // This record is in the old segment; later ones cannot be written anywhere.
                failure = StorageFailure(error)
                condition.broadcast()
            }
        }
        return seq
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
    /// for `waitForRotation`.
    @discardableResult
    public func requestRotation() -> Int {
        condition.withLock {
            rotationsRequested += 1
            guard inline else {
                rotationRequested = true
                condition.signal()
                return rotationsRequested
            }
            // Rotate now: the caller holds whatever orders writes, so nothing after this point lands in the old
            // segment (compaction depends on it).
            if failure == nil, !stopping {
                do throws(IOError) {
                    try startNextSegmentLocked()
                } catch {
                    failure = StorageFailure(error)
                }
            }
            rotationsDone = rotationsRequested
            condition.broadcast()
            return rotationsRequested
        }
    }

    /// Blocks until the rotation with that ticket happened (or the log failed or stopped).
    public func waitForRotation(_ ticket: Int) {
        condition.lock()
        while rotationsDone < ticket, failure == nil, !stopped { condition.wait() }
        condition.unlock()
    }

    /// Flushes, fsyncs and stops the writer.
    public func close() {
        condition.lock()
        stopping = true
        condition.signal()
        while !stopped { condition.wait() }
        condition.unlock()
    }

    // MARK: - Writer thread

    private func writerLoop() {
        if inline {
            inlineMaintenanceLoop()
            return
        }
        // Group commit (`always`): every flush is fsynced before it is acknowledged.
        while true {
            condition.lock()
            while queued.isEmpty, !rotationRequested, !stopping { condition.wait() }
            let batch = queued
            let batchLastSeq = queuedLastSeq
            let rotate = rotationRequested
            let stop = stopping
            queued.removeAll(keepingCapacity: batch.count < 1 << 20)
            rotationRequested = false
            let broken = failure != nil
            condition.unlock()
            if broken {
                unsyncedSeq = 0
                if stop {
                    finishStopping()
                    return
                }
                continue
            }
            do throws(IOError) {
                if !batch.isEmpty {
                    try fileSystem.writeAll(fd, batch, path: segmentPath)
                    segmentBytes += batch.count
                    unsyncedSeq = batchLastSeq
                    writtenThrough = batchLastSeq
                }
                if unsyncedSeq > 0 { try sync() }
                if !batch.isEmpty { acknowledge(through: batchLastSeq) }
                if rotate || segmentBytes >= segmentLimit {
                    fileSystem.close(fd)
                    fd = -1
                    try openSegment(firstSeq: writtenThrough + 1)
                    if rotate {
                        condition.lock()
                        rotationsDone = rotationsRequested
                        condition.broadcast()
                        condition.unlock()
                    }
                }
            } catch {
                fail(StorageFailure(error))
            }
            if stop {
                finishStopping()
                return
            }
        }
    }

    private var writtenThrough: UInt64 = 0

    private func sync() throws(IOError) {
        try fileSystem.fsync(fd, path: segmentPath)
        fsyncCount.add(1, ordering: .relaxed)
        unsyncedSeq = 0
        lastSync = .now
    }

    /// Inline mode: appenders write (and start new segments); this thread fsyncs what they wrote once per
    /// interval, and syncs and closes retired segments, outside the lock so writes go on meanwhile.
    private func inlineMaintenanceLoop() {
        while true {
            condition.lock()
            while !stopping, retiring.isEmpty {
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
            let retired = retiring
            retiring.removeAll()
            let healthy = failure == nil
            let dirtySeq = healthy && unsyncedSeq > 0 && (stop || policy == .interval && ContinuousClock.now >= lastSync + interval) ? unsyncedSeq : 0
            let syncFD = fd, syncPath = segmentPath
            condition.unlock()
            do throws(IOError) {
                for segment in retired {
                    if segment.dirty, healthy {
                        try fileSystem.fsync(segment.fd, path: segment.path)
                        fsyncCount.add(1, ordering: .relaxed)
                    }
                    fileSystem.close(segment.fd)
                }
                if dirtySeq > 0 {
                    try fileSystem.fsync(syncFD, path: syncPath)
                    fsyncCount.add(1, ordering: .relaxed)
                    condition.withLock {
                        if unsyncedSeq == dirtySeq { unsyncedSeq = 0 }
                        lastSync = .now
                    }
                }
            } catch {
                fail(StorageFailure(error))
            }
            if stop {
                finishStopping()
                return
            }
        }
    }

    /// Inline mode, under the lock: later records go to a new segment; the writer thread syncs and closes the old
    /// one. Appenders wait for one open and one directory fsync, once per snapshot or full segment.
    private func startNextSegmentLocked() throws(IOError) {
        retiring.append((fd, segmentPath, unsyncedSeq > 0))
        fd = -1
        unsyncedSeq = 0
        condition.signal()
        try openSegment(firstSeq: nextSeq)
    }

    private func acknowledge(through seq: UInt64) {
        condition.lock()
        acknowledgedSeq = max(acknowledgedSeq, seq)
        var ready: [Waiter] = []
        waiters.removeAll { waiter in
            guard waiter.seq <= seq else { return false }
            ready.append(waiter)
            return true
        }
        condition.unlock()
        for waiter in ready { waiter.completion(.success(waiter.seq)) }
    }

    /// After a failed write or fsync nothing more is acknowledged: memory may be ahead of the disk (DESIGN §7).
    private func fail(_ error: StorageFailure) {
        condition.lock()
        if failure == nil { failure = error }
        let failed = waiters
        waiters.removeAll()
        queued.removeAll()
        condition.broadcast()
        condition.unlock()
        for waiter in failed { waiter.completion(.failure(error)) }
    }

    private func finishStopping() {
        if fd >= 0 { fileSystem.close(fd) }
        fd = -1
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }

    private func openSegment(firstSeq: UInt64) throws(IOError) {
        segmentPath = (directory as NSString).appendingPathComponent(Self.segmentName(firstSeq: firstSeq))
        fd = try fileSystem.openForAppend(segmentPath)
        segmentBytes = 0
        try fileSystem.fsyncDirectory(directory)
    }
}

/// The log can no longer acknowledge writes until the daemon restarts.
public struct StorageFailure: Error, Equatable, Sendable, CustomStringConvertible {
    public let underlying: IOError

    public init(_ underlying: IOError) {
        self.underlying = underlying
    }

    public var description: String { "storage failed: \(underlying)" }
}
