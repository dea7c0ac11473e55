import Foundation

/// The file calls and the writer thread: each performs what the `GroupCommit` value asks for, outside `condition`,
/// and hands the result back under it.
extension AppendLog {
    /// Every thread that held the file lock checks the queue again after releasing it: a record queued by a
    /// thread that could not get the lock is then never left behind.
    ///
    /// `passes` bounds how many batches this call writes: a loop committing its own rounds (`flushRoundHere`) must
    /// not be kept writing, and fsyncing, batch after batch that other loops keep queueing.
    @discardableResult
    func flushQueued(waitForLock: Bool, passes: Int = .max) -> Bool {
        var wait = waitForLock
        var left = passes
        while true {
            if wait { fileLock.lock() } else if !fileLock.try() { return true }
            var step = stepping { $0.beginFlush() }
            while case .perform(let request, _) = step {
                let response = perform(request)
                step = stepping { $0.advance(response) }
            }
            fileLock.unlock()
            if case .settled(let settled) = step { deliver(settled) }
            guard locked({ $0.hasUnflushed }) else { return true }
            left -= 1
            // Records still queued, and this caller's passes spent: the caller hands them on.
            if left <= 0 { return false }
            // From here on, a thread holding the lock will look again after us.
            wait = false
        }
    }

    /// Runs `body` on the state under `condition`, waking everyone when the step it returns says so.
    private func stepping(_ body: (inout GroupCommit<Completion>) -> GroupCommit<Completion>.FlushStep) -> GroupCommit<Completion>.FlushStep {
        condition.lock()
        defer { condition.unlock() }
        let step = body(&state)
        switch step {
        case .perform(_, let wake): if wake { condition.broadcast() }
        case .settled(let settled): if settled.wake { condition.broadcast() }
        }
        return step
    }

    private func locked<T>(_ body: (inout GroupCommit<Completion>) -> T) -> T {
        condition.lock()
        defer { condition.unlock() }
        return body(&state)
    }

    private func perform(_ request: GroupCommit<Completion>.Request) -> GroupCommit<Completion>.Response {
        do throws(IOError) {
            switch request {
            case .write(let fd, let path, let bytes):
                // `withUnsafeBytes` rethrows untyped: carry the typed error out as a value.
                let written = bytes.withUnsafeBytes { raw in Result { () throws(IOError) in try fileSystem.write(fd, raw, path: path) } }
                return .wrote(try written.get())
            case .fsync(let fd, let path):
                try fsyncWorking(fd, path: path)
                return .done
            case .open(let path):
                return .opened(try fileSystem.openForAppend(path))
            case .syncDirectory(let path):
                try fileSystem.fsyncDirectory(path)
                return .done
            }
        } catch {
            return .failed(error)
        }
    }

    private func fsync(_ fd: Int32, path: String) throws(IOError) {
        try fileSystem.syncData(fd, path: path)
        fsyncCount.add(1, ordering: .relaxed)
    }

    /// A batch's fsync. A loop committing its round hands the fsync to the fsync thread and, on its own thread,
    /// does the `whileSyncing` work handed over so far while it is out. The writer thread drops that work: done
    /// here it would only hold back the batch's acknowledgement, and its completions compute it themselves. Runs
    /// holding the file lock and no other.
    private func fsyncWorking(_ fd: Int32, path: String) throws(IOError) {
        var work: [@Sendable () -> Void] = []
        condition.withLock { swap(&work, &earlyWork) }
        guard !work.isEmpty, let helper = fsyncThread, writerThread.load(ordering: .relaxed) != UInt(pthread_self()),
            helper.start(fd: fd, path: path)
        else { return try fsync(fd, path: path) }
        for item in work { item() }
        try helper.finish()
        fsyncCount.add(1, ordering: .relaxed)
    }

    /// Outside every lock: the failure handler logs and may ask the log for its state; completions may write.
    /// On the writer thread they go to the completion queue instead (see the threading note on `AppendLog`).
    private func deliver(_ settled: GroupCommit<Completion>.Settled) {
        if let failure = settled.failure, let report = condition.withLock({ failureHandler }) { report(failure) }
        guard !settled.completions.isEmpty else { return }
        if writerThread.load(ordering: .relaxed) == UInt(pthread_self()) {
            let batch = settled.completions.map { (waiter: $0.waiter, outcome: $0.outcome) }
            completions.async { for completion in batch { completion.waiter(completion.outcome) } }
        } else {
            for completion in settled.completions { completion.waiter(completion.outcome) }
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
                    for fd in state.finishStopping() { fileSystem.close(fd) }
                    condition.broadcast()
                }
                return
            }
        }
    }
}
