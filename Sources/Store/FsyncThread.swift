import CLinux
import Foundation

/// A thread that makes one fsync at a time for a caller with other work to do meanwhile.
///
/// An event loop committing its own round under `--fsync always` has written the batch and must wait for the
/// disk (half a millisecond and more on a busy disk) before it may answer. The answers' computation does not need
/// the disk: the loop hands the fsync here, computes, and then waits for what is left of the fsync. The thread
/// sleeps in the kernel the whole time, so on one CPU it takes the core from nobody.
///
/// A loop may also not wait at all (`begin`): it goes back to its sockets, and the thread hands the result to a
/// callback, which brings it back to the loop (`AppendLog.flushRoundHere`, pipelined).
///
/// Threads: `start`/`finish` pairs and `begin` are called by one caller at a time (the log's flusher, which holds
/// the log's file); the fsync itself, and `begin`'s callback, run on this class's own thread.
final class FsyncThread: @unchecked Sendable {
    typealias Returned = @Sendable (Result<Void, IOError>) -> Void

    private enum Job {
        case idle
        /// `returned` set: `begin`'s job, handed to the callback instead of waiting for `finish`.
        case asked(fd: Int32, path: String, returned: Returned?)
        case running
        case done(Result<Void, IOError>)
    }

    private let fileSystem: FileSystem
    private let condition = NSCondition()
    // Guarded by `condition`.
    private var job = Job.idle
    private var started = false
    /// Set by `stop`; the thread ends once no job is out, and `start` then declines.
    private var stopping = false

    init(fileSystem: FileSystem) {
        self.fileSystem = fileSystem
    }

    /// Asks for an fsync of `fd`; the thread starts on the first call. Returns false once stopped: the caller then
    /// fsyncs itself. Pair a `true` with `finish`.
    func start(fd: Int32, path: String) -> Bool {
        ask(fd: fd, path: path, returned: nil)
    }

    /// Asks for an fsync of `fd` and returns at once; `returned` gets its result on this thread. Returns false once
    /// stopped (`returned` is then never called): the caller fsyncs itself. Not paired with `finish`.
    func begin(fd: Int32, path: String, returned: @escaping Returned) -> Bool {
        ask(fd: fd, path: path, returned: returned)
    }

    private func ask(fd: Int32, path: String, returned: Returned?) -> Bool {
        condition.lock()
        guard !stopping else {
            condition.unlock()
            return false
        }
        if !started {
            started = true
            let thread = Thread { [self] in
                specd_name_current_thread("specd-log-fsync")
                run()
            }
            thread.start()
        }
        job = .asked(fd: fd, path: path, returned: returned)
        condition.unlock()
        wakeAfterUnlocking()
        return true
    }

    /// Wakes the other side once the lock is free. Woken with the lock still held, a thread sharing the caller's
    /// core preempts it, finds the lock taken, sleeps on it, and is woken again by the unlock: two more context
    /// switches and three more futex calls for every fsync (measured under `--fsync always` on one core). A waiter
    /// checks `job` under the lock before it sleeps, so a wake-up given after the unlock is never lost.
    private func wakeAfterUnlocking() {
        condition.broadcast()
    }

    /// Blocks until the fsync `start` asked for returned, and returns how it went.
    func finish() throws(IOError) {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if case .done(let result) = job {
                job = .idle
                condition.broadcast()
                try result.get()
                return
            }
            condition.wait()
        }
    }

    /// Ends the thread once no job is out (a job asked for still runs and is finished); later `start`s decline.
    func stop() {
        condition.withLock {
            stopping = true
            condition.broadcast()
        }
    }

    private func run() {
        condition.lock()
        while true {
            switch job {
            case .asked(let fd, let path, let returned):
                job = .running
                condition.unlock()
                let result = Result { () throws(IOError) in try fileSystem.syncData(fd, path: path) }
                condition.lock()
                guard let returned else {
                    job = .done(result)
                    condition.unlock()
                    wakeAfterUnlocking()
                    condition.lock()
                    continue
                }
                job = .idle
                condition.unlock()
                returned(result)
                condition.lock()
            case .idle where stopping:
                condition.unlock()
                return
            case .idle, .running, .done:
                condition.wait()
            }
        }
    }
}
