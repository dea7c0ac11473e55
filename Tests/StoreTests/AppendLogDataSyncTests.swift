import CLinux
import Foundation
import Store
import StoreFixtures
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The log makes its appends durable with a data sync (`fdatasync`), as Redis's log does on Linux: the new size
/// is committed with the data, the modification time is not, and ext4 skips a journal write per acknowledgement.
@Suite struct AppendLogDataSyncTests {
    @Test(arguments: [false, true])
    func always_acknowledgesAfterADataSync_neverAFullFsyncOfTheSegment(writersCommit: Bool) throws {
        let fileSystem = SyncRecordingFileSystem()
        let log = try AppendLog(
            directory: temporaryDirectory(), fileSystem: fileSystem, policy: .always, nextSeq: 1,
            writersCommit: writersCommit)
        defer { log.close() }
        let acknowledged = DispatchSemaphore(value: 0)
        for record in 0..<20 {
            let seq = try log.append([UInt8(record)])
            log.whenAcknowledged(seq) { result in
                if (try? result.get()) != nil { acknowledged.signal() }
            }
            log.flush()
            #expect(acknowledged.wait(timeout: .now() + 30) == .success)
        }
        #expect(fileSystem.dataSyncs.load(ordering: .relaxed) >= 20)
        #expect(fileSystem.fullFsyncs.load(ordering: .relaxed) == 0)
    }

    @Test func posixDataSync_ofAClosedDescriptor_failsNamingFdatasyncAndThePath() throws {
        let path = temporaryDirectory() + "/closed"
        let fileSystem = PosixFileSystem()
        let fd = try fileSystem.openForAppend(path)
        fileSystem.close(fd)
        #expect(throws: IOError(call: "fdatasync", path: path, code: EBADF)) {
            try fileSystem.syncData(fd, path: path)
        }
    }

    /// The writeback a loop starts before its own fsync (`AppendLog.fsyncHere`): the kernel takes it for a
    /// regular file and refuses a pipe; the file system's call ignores the answer, and a data sync after it keeps
    /// the bytes.
    @Test func startWriteback_isTakenForAFile_refusedForAPipe_andASyncAfterItKeepsTheBytes() throws {
        let path = temporaryDirectory() + "/writeback"
        let fileSystem = PosixFileSystem()
        let fd = try fileSystem.openForAppend(path)
        defer { fileSystem.close(fd) }
        try fileSystem.writeAll(fd, [1, 2, 3], path: path)
        #expect(specd_start_writeback(fd) == 0)
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { ends.forEach { _ = Glibc.close($0) } }
        let refused = specd_start_writeback(ends[0])
        let code = errno
        #expect(refused == -1 && code == ESPIPE)
        fileSystem.startWriteback(ends[0])
        fileSystem.startWriteback(fd)
        try fileSystem.syncData(fd, path: path)
        #expect(try fileSystem.read(path) == [1, 2, 3])
    }

    @Test func posixDataSync_ofAnOpenFile_succeeds() throws {
        let path = temporaryDirectory() + "/open"
        let fileSystem = PosixFileSystem()
        let fd = try fileSystem.openForAppend(path)
        defer { fileSystem.close(fd) }
        try fileSystem.writeAll(fd, [1, 2, 3], path: path)
        try fileSystem.syncData(fd, path: path)
        #expect(fileSystem.size(path) == 3)
    }
}

/// Counts the two kinds of file sync the log may ask for; both reach the real file system.
final class SyncRecordingFileSystem: ForwardingFileSystem, Sendable {
    let inner: FileSystem = PosixFileSystem()
    let dataSyncs = Atomic<Int>(0)
    let fullFsyncs = Atomic<Int>(0)

    func fsync(_ fd: Int32, path: String) throws(IOError) {
        fullFsyncs.add(1, ordering: .relaxed)
        try inner.fsync(fd, path: path)
    }

    func syncData(_ fd: Int32, path: String) throws(IOError) {
        dataSyncs.add(1, ordering: .relaxed)
        try inner.syncData(fd, path: path)
    }
}
