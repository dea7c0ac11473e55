import Foundation

/// The file calls and the writer thread: each performs what the `GroupCommit` value asks for, outside `condition`,
/// and hands the result back under it.
extension AppendLog {
    /// Every thread that held the file checks the queue again after releasing it: a record queued by a thread that
    /// could not get the file is then never left behind.
    ///
    /// `passes` bounds how many batches this call writes: a loop committing its own rounds (`flushRoundHere`) must
    /// not be kept writing, and fsyncing, batch after batch that other loops keep queueing. With `runners` (a loop
    /// pipelining its fsyncs) a batch's fsync is left out and the call returns; the batch's end, on the loop, looks
    /// again. `runners` gives the calling loop's runner, asked only when an fsync is to be left out (a round with
    /// nothing to write pays nothing for it). Returns false when records are still queued after the last pass.
    @discardableResult
    func flushQueued(waitForLock: Bool, passes: Int = .max, runners: (@Sendable () -> RoundRunner?)? = nil) -> Bool {
        var wait = waitForLock
        var left = passes
        while true {
            switch acquireFile(wait: wait) {
            case .taken: break
            case .nothingToFlush: return true
            case .busy:
                if runners == nil { leaveToWriterWhileSuspended() }
                return true
            }
            guard let settled = drive(stepping { $0.beginFlush() }, runners: runners) else { return true }
            deliver(settled)
            guard locked({ $0.hasUnflushed }) else { return true }
            left -= 1
            // Records still queued, and this caller's passes spent: the caller hands them on.
            if left <= 0 { return false }
            // From here on, a thread holding the file will look again after us.
            wait = false
        }
    }

    private enum FileClaim { case taken, busy, nothingToFlush }

    /// Takes the file for one batch; `.busy` when another flusher has it and `wait` is not set. Without `wait`, a
    /// caller with nothing to flush takes nothing (a round's end with no write, most of a read load's rounds: one
    /// lock, where taking and releasing the file took three). A waiter finishes a pipelined batch whose fsync
    /// returned and whose loop has not (a stopped loop never will).
    private func acquireFile(wait: Bool) -> FileClaim {
        condition.lock()
        if !wait, !inPlace({ $0.hasWork }) {
            // Under the lock, as every set is: a record queued after this check sets it again.
            mayHaveWork.store(false, ordering: .relaxed)
            condition.unlock()
            return .nothingToFlush
        }
        while flushing {
            guard wait else {
                condition.unlock()
                return .busy
            }
            if let suspended, suspended.hasReturned {
                condition.unlock()
                finish(suspended, runners: nil)
                condition.lock()
                continue
            }
            fileWaiters += 1
            condition.wait()
            fileWaiters -= 1
        }
        flushing = true
        condition.unlock()
        return .taken
    }

    /// The file is held by a batch whose fsync is out and which its loop finishes: a caller off that loop (a
    /// clock's fire, a tool) leaves its records to the writer thread, which waits for the file. Were they left to
    /// the batch's end alone, a loop that stopped before it ran that end would strand them until the close.
    private func leaveToWriterWhileSuspended() {
        condition.withLock {
            // Broadcast: the writer may be any of the condition's waiters.
            if suspended != nil, state.handOff(above: 0) == .leftToWriter(wake: true) { condition.broadcast() }
        }
    }

    /// Performs the batch's requests until it is settled, and returns what to deliver; `nil` when an fsync was left
    /// out for the loop `runners` gives (the batch keeps the file).
    ///
    /// On the loop, the fsync is left out while other work waits, and made here when none does (`fsyncHere`), unless
    /// `mayWaitHere` is false (a batch started before the completions of the one before it run: those would wait
    /// for this fsync too), recent fsyncs were slow (`fsyncHereLimit`), or one of the last batches found work
    /// waiting (`leftOutAfterWaitingWork`).
    private func drive(
        _ first: GroupCommit<Waiter>.FlushStep, runners: (@Sendable () -> RoundRunner?)?, mayWaitHere: Bool = true
    ) -> GroupCommit<Waiter>.Settled? {
        var step = first
        while case .perform(let request, _) = step {
            let response: GroupCommit<Waiter>.Response
            if let runners, case .fsync(let fd, let path) = request, let runner = runners() {
                if !mayWaitHere || recentFsync.load(ordering: .relaxed) >= Self.fsyncHereLimit || keepsLeavingOut() {
                    if suspend(fd: fd, path: path, runner: runner) { return nil }
                    response = perform(request)
                } else {
                    response = fsyncHere(fd, path: path)
                }
            } else {
                response = perform(request)
            }
            step = stepping { $0.advance(response) }
        }
        guard case .settled(let settled) = step else { preconditionFailure("a flush ends settled") }
        return settled
    }

    /// Leaves the batch's fsync to the fsync thread, whose result comes back to `runner`'s loop as a task; does the
    /// `whileSyncing` work meanwhile. `false` (nothing left out) when the fsync thread has stopped.
    private func suspend(fd: Int32, path: String, runner: @escaping RoundRunner) -> Bool {
        guard let helper = fsyncThread else { return false }
        let batch = SuspendedFlush()
        condition.withLock { suspended = batch }
        let began = DispatchTime.now().uptimeNanoseconds
        let started = helper.begin(fd: fd, path: path) { [self] result in
            noteFsync(since: began)
            batch.returned(result)
            // A thread waiting for the file may finish the batch if the loop does not.
            condition.withLock { if fileWaiters > 0 { condition.broadcast() } }
            runner { [self] in finish(batch, runners: roundRunner) }
        }
        guard started else {
            condition.withLock { suspended = nil }
            return false
        }
        var work = takeEarlyWork()
        for item in work { item.run() }
        giveBack(&work)
        return true
    }

    /// The `whileSyncing` work handed over so far, for whoever is about to wait for an fsync.
    private func takeEarlyWork() -> [EarlyWork] {
        var work: [EarlyWork] = []
        condition.withLock { swap(&work, &earlyWork) }
        return work
    }

    /// Empties taken work's buffer and keeps it for the next batch's work, unless more was handed over meanwhile:
    /// a fresh buffer regrew every batch, five allocations for sixteen writes.
    private func giveBack(_ work: inout [EarlyWork]) {
        guard work.capacity > 0 else { return }
        work.removeAll(keepingCapacity: true)
        condition.withLock { if earlyWork.isEmpty { swap(&work, &earlyWork) } }
    }

    /// A pipelined batch's fsync returned: the batch goes on from there (on its loop, with `runners`, or on a thread
    /// that waited for the file, which takes the file next). Unless an fsync is left out again, the file is
    /// released and the completions delivered; on the loop, the next batch is started first, so the disk works
    /// while this batch's completions run. Whatever that batch leaves queued, the loop's round end commits, as
    /// the end of a round always follows its tasks (`EpollEventLoop.runLoop`).
    private func finish(_ batch: SuspendedFlush, runners: (@Sendable () -> RoundRunner?)?) {
        guard let result = batch.claim() else { return }
        condition.withLock { if suspended === batch { suspended = nil } }
        let response: GroupCommit<Waiter>.Response
        switch result {
        case .success:
            fsyncCount.add(1, ordering: .relaxed)
            response = .done
        case .failure(let error):
            response = .failed(error)
        }
        guard let settled = drive(stepping { $0.advance(response) }, runners: runners) else { return }
        // The next batch, if it settles at once (a failed write, a stopped fsync thread), is told after this one.
        var next: GroupCommit<Waiter>.Settled?
        if runners != nil, acquireFile(wait: false) == .taken {
            // Found by review: with nothing else waiting the next batch was fsynced here, and this batch's
            // completions, already durable, waited for that fsync too.
            next = drive(stepping { $0.beginFlush() }, runners: runners, mayWaitHere: settled.completions.isEmpty)
        }
        deliver(settled)
        if let next { deliver(next) }
    }

    /// Runs `body` on the state under `condition`, waking everyone when the step it returns says so.
    /// Only the file's holder steps a batch; the step that settles it releases the file under the same lock.
    private func stepping(_ body: (inout GroupCommit<Waiter>) -> GroupCommit<Waiter>.FlushStep) -> GroupCommit<Waiter>.FlushStep {
        condition.lock()
        defer { condition.unlock() }
        let step = body(&state)
        switch step {
        case .perform(_, let wake): if wake { condition.broadcast() }
        case .settled(let settled):
            flushing = false
            if settled.wake || fileWaiters > 0 { condition.broadcast() }
        }
        return step
    }

    /// Reads the state where it lies, for a caller holding `condition`. A getter asked of `state` itself (`hasWork`,
    /// `hasUnflushed`) copied the whole value first, every array and string in it retained and then released
    /// (callgrind: two copies a donation under `always`, some 600 instructions and 28 atomic operations): a struct
    /// stored in a class is copied for a call the optimizer cannot prove leaves it alone; passed `inout`, it is not.
    func inPlace<T>(_ read: (inout GroupCommit<Waiter>) -> T) -> T { read(&state) }

    private func locked<T>(_ body: (inout GroupCommit<Waiter>) -> T) -> T {
        condition.lock()
        defer { condition.unlock() }
        return body(&state)
    }

    private func perform(_ request: GroupCommit<Waiter>.Request) -> GroupCommit<Waiter>.Response {
        do throws(IOError) {
            switch request {
            case .write(let fd, let path, let bytes):
                // `withUnsafeBytes` rethrows untyped: carry the typed error out as a value.
                let written = try bytes.withUnsafeBytes { raw in Result { () throws(IOError) in try fileSystem.write(fd, raw, path: path) } }.get()
                writtenBytes.add(written, ordering: .relaxed)
                return .wrote(written)
            case .fsync(let fd, let path):
                try fsyncWorking(fd, path: path)
                return .done
            case .open(let path):
                return .opened(try fileSystem.openForAppend(path))
            case .syncDirectory(let path):
                try fileSystem.fsyncDirectory(path)
                return .done
            case .reserve(let fd, let path, let from, let count):
                // Space ahead only makes syncs cheaper: a file system that cannot give it (full, say) leaves the
                // log appending, and the write that follows reports the real trouble, if any.
                return .reserved((try? fileSystem.reserve(fd, from: from, count: count, path: path)) ?? false)
            }
        } catch {
            return .failed(error)
        }
    }

    private func fsync(_ fd: Int32, path: String) throws(IOError) {
        try fileSystem.syncData(fd, path: path)
        fsyncCount.add(1, ordering: .relaxed)
    }

    /// A batch's fsync made by a loop with nothing else ready (see `pipelineRoundFsyncs`): the batch's pages start
    /// out to the disk, the `whileSyncing` work runs while they go, and the fsync then waits for the rest. No other
    /// thread is woken. Runs holding the file and no lock.
    private func fsyncHere(_ fd: Int32, path: String) -> GroupCommit<Waiter>.Response {
        let began = DispatchTime.now().uptimeNanoseconds
        fileSystem.startWriteback(fd)
        var work = takeEarlyWork()
        for item in work { item.run() }
        giveBack(&work)
        defer { noteFsync(since: began) }
        do throws(IOError) {
            try fsync(fd, path: path)
            return .done
        } catch {
            return .failed(error)
        }
    }

    /// Whether the loop's batch is left out for work waiting now or lately: work found waiting keeps the next
    /// `leftOutAfterWaitingWork` batches out too. A load of reads and writes leaves a round now and then with only
    /// writes in it, and a loop that fsynced those itself kept the disk idle while it then served the reads
    /// (bench-mixed: donations 0.89x); a load of writes alone finds nothing waiting, batch after batch. Loop thread
    /// only (its batches' decisions; one loop pipelines at most).
    private func keepsLeavingOut() -> Bool {
        if loopHasOtherWork() {
            batchesLeftOut = Self.leftOutAfterWaitingWork
            return true
        }
        guard batchesLeftOut > 0 else { return false }
        batchesLeftOut -= 1
        return true
    }

    /// How many batches after one that found work waiting are left out as well (`keepsLeavingOut`).
    static let leftOutAfterWaitingWork = 8

    /// A loop fsyncs here only while recent fsyncs took less than this: on a disk that stalls (a snapshot's
    /// writeback ahead in the queue, a device busy elsewhere) the loop would hold every read and probe for as long,
    /// where a fsync left out keeps it serving them.
    static let fsyncHereLimit = 1_000_000

    /// Folds the duration of an fsync asked at `began` (`DispatchTime` nanoseconds) into `recentFsync`, an average
    /// weighted 1/8 to the newest: one fsync of 8 ms or more moves it to the limit, and after one of 50 ms some
    /// fifteen of 0.1 ms bring it back under. A left-out fsync counts until the helper returns, its wait for the CPU
    /// included: a loop busy enough to keep the helper waiting is better off leaving fsyncs out anyway. One batch at
    /// a time holds the file, so one caller at a time.
    private func noteFsync(since began: UInt64) {
        let took = Int(clamping: DispatchTime.now().uptimeNanoseconds &- began)
        let average = recentFsync.load(ordering: .relaxed)
        recentFsync.store(average + (took - average) / 8, ordering: .relaxed)
    }

    /// A batch's fsync. A loop committing its round hands the fsync to the fsync thread and, on its own thread,
    /// does the `whileSyncing` work handed over so far while it is out. The writer thread drops that work: done
    /// here it would only hold back the batch's acknowledgement, and its completions compute it themselves. Runs
    /// holding the file and no lock.
    private func fsyncWorking(_ fd: Int32, path: String) throws(IOError) {
        var work = takeEarlyWork()
        guard !work.isEmpty, let helper = fsyncThread, writerThread.load(ordering: .relaxed) != UInt(pthread_self()),
            helper.start(fd: fd, path: path)
        else {
            giveBack(&work)
            return try fsync(fd, path: path)
        }
        for item in work { item.run() }
        giveBack(&work)
        try helper.finish()
        fsyncCount.add(1, ordering: .relaxed)
    }

    /// Outside every lock: the failure handler logs and may ask the log for its state; completions may write.
    /// On the writer thread they go to the completion queue instead (see the threading note on `AppendLog`).
    private func deliver(_ settled: GroupCommit<Waiter>.Settled) {
        if let failure = settled.failure, let report = condition.withLock({ failureHandler }) { report(failure) }
        guard !settled.completions.isEmpty else { return }
        if writerThread.load(ordering: .relaxed) == UInt(pthread_self()) {
            let batch = settled.completions.map { (waiter: $0.waiter, outcome: $0.outcome) }
            completions.async { for completion in batch { completion.waiter.call(completion.outcome) } }
        } else {
            // Called where they lie: a loop's `for completion in` copied each one, its waiter retained and released.
            settled.completions.withUnsafeBufferPointer { batch in
                for index in batch.indices { batch[index].waiter.call(batch[index].outcome) }
            }
        }
    }

    private func fail(_ error: IOError) {
        let settled = condition.withLock {
            condition.broadcast()
            return state.fail(StorageFailure(error))
        }
        deliver(settled)
    }

    // MARK: - Writer thread

    func writerLoop() {
        writerThread.store(UInt(pthread_self()), ordering: .relaxed)
        while true {
            condition.lock()
            while true {
                switch state.sleep(now: .now) {
                case .awake: break
                case .untilWoken:
                    condition.wait()
                    continue
                case .until(let due):
                    let wait = due - ContinuousClock.now
                    _ = condition.wait(until: Date().addingTimeInterval(Double(wait.components.seconds) + Double(wait.components.attoseconds) / 1e18))
                    continue
                }
                break
            }
            let round = state.beginRound()
            condition.unlock()
            if round.drain { flushQueued(waitForLock: true) }
            let chores = locked { $0.takeChores(now: .now, stopping: round.stop) }
            var failure: IOError?
            for segment in chores.closes {
                // Best effort: a segment still holding its reserved zeros reads the same (`LogRecord.isPadding`).
                if let size = segment.truncateTo { try? fileSystem.truncate(segment.path, to: size) }
                if segment.sync, failure == nil {
                    do throws(IOError) { try fsync(segment.fd, path: segment.path) } catch { failure = error }
                }
                fileSystem.close(segment.fd)
            }
            if failure == nil, let sync = chores.sync {
                do throws(IOError) {
                    try fsync(sync.fd, path: sync.path)
                    locked { $0.synced(sync.seq, at: .now) }
                } catch {
                    failure = error
                }
            }
            if let failure { fail(failure) }
            if round.stop {
                // Closed before `close()` callers see the log stopped.
                condition.withLock {
                    // A clean stop leaves the live segment holding its records alone, as a retired one does: the
                    // directory then reads the same to a build that knows nothing of reserved zeros.
                    let live = state.segment
                    if live.fd >= 0, live.reserved > live.bytes { try? fileSystem.truncate(live.path, to: live.bytes) }
                    for fd in state.finishStopping() { fileSystem.close(fd) }
                    condition.broadcast()
                }
                return
            }
        }
    }
}
