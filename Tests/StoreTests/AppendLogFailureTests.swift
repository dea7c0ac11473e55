import Foundation
import Store
import StoreFixtures
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The log against a file system the test steers call by call: failures that land while another thread is
/// writing.
@Suite struct AppendLogFailureTests {
    /// Under `interval` the writer thread fsyncs while a caller writes its batch. When that fsync fails, the file's
    /// state is unknown: the batch being written must not be acknowledged once its write returns.
    @Test func intervalFsyncFails_whileABatchIsBeingWritten_thatBatchIsNeverAcknowledged() throws {
        let fileSystem = SteeredFileSystem(holdWrite: 2, holdAndFailFsync: 1)
        let log = try AppendLog(
            directory: temporaryDirectory(), fileSystem: fileSystem, policy: .interval, nextSeq: 1,
            interval: .milliseconds(1))
        defer { log.close() }
        _ = try log.append([1])
        log.flush()
        // The writer thread now fsyncs record 1 and is held inside that fsync.
        fileSystem.fsyncHeld.wait()
        let second = try log.append([2])
        let flushed = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            log.flush()
            flushed.signal()
        }
        fileSystem.writeHeld.wait()
        // The fsync fails while the second batch is inside its write.
        fileSystem.fsyncGate.signal()
        let deadline = ContinuousClock.now + .seconds(10)
        while log.failed == nil, ContinuousClock.now < deadline { usleep(1000) }
        #expect(log.failed != nil)
        fileSystem.writeGate.signal()
        flushed.wait()
        let outcome = Mutex<Result<UInt64, StorageFailure>?>(nil)
        log.whenAcknowledged(second) { result in outcome.withLock { $0 = result } }
        let acknowledged = outcome.withLock { (try? $0?.get()) != nil }
        #expect(!acknowledged, "a write was acknowledged after the log failed")
    }
}

/// Passes every call to the real file system, except that the `holdWrite`-th write waits for `writeGate` and the
/// `holdAndFailFsync`-th fsync waits for `fsyncGate`, then fails with EIO.
final class SteeredFileSystem: ForwardingFileSystem, Sendable {
    let inner: FileSystem = PosixFileSystem()
    let holdWrite: Int
    let holdAndFailFsync: Int
    let writes = Atomic<Int>(0)
    let fsyncs = Atomic<Int>(0)
    let writeHeld = DispatchSemaphore(value: 0)
    let writeGate = DispatchSemaphore(value: 0)
    let fsyncHeld = DispatchSemaphore(value: 0)
    let fsyncGate = DispatchSemaphore(value: 0)

    init(holdWrite: Int, holdAndFailFsync: Int) {
        self.holdWrite = holdWrite
        self.holdAndFailFsync = holdAndFailFsync
    }

    func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws(IOError) -> Int {
        if writes.add(1, ordering: .relaxed).newValue == holdWrite {
            writeHeld.signal()
            writeGate.wait()
        }
        return try inner.write(fd, bytes, path: path)
    }

    func fsync(_ fd: Int32, path: String) throws(IOError) {
        if fsyncs.add(1, ordering: .relaxed).newValue == holdAndFailFsync {
            fsyncHeld.signal()
            fsyncGate.wait()
            throw IOError(call: "fsync", path: path, code: EIO)
        }
        try inner.fsync(fd, path: path)
    }
}
