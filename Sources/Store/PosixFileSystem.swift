import CLinux
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The real thing, straight POSIX.
public struct PosixFileSystem: FileSystem {
    public init() {}

    /// Writes go where the descriptor stands, which starts at the file's end: not `O_APPEND`, which would put
    /// them after the zeros a log reserves ahead (`reserve`). One descriptor writes a file, so the two agree.
    public func openForAppend(_ path: String) throws(IOError) -> Int32 {
        let fd = Glibc.open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw IOError(call: "open", path: path, code: errno) }
        guard lseek(fd, 0, SEEK_END) >= 0 else {
            let code = errno
            _ = Glibc.close(fd)
            throw IOError(call: "lseek", path: path, code: code)
        }
        return fd
    }

    public func openForWrite(_ path: String) throws(IOError) -> Int32 {
        let fd = Glibc.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw IOError(call: "open", path: path, code: errno) }
        return fd
    }

    public func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws(IOError) -> Int {
        while true {
            let written = Glibc.write(fd, bytes.baseAddress, bytes.count)
            if written >= 0 { return written }
            if errno == EINTR { continue }
            throw IOError(call: "write", path: path, code: errno)
        }
    }

    public func fsync(_ fd: Int32, path: String) throws(IOError) {
        guard Glibc.fsync(fd) == 0 else { throw IOError(call: "fsync", path: path, code: errno) }
    }

    /// An append grows the file, so `fdatasync` still commits the new size with the data; it skips the
    /// modification time, which costs a second journal write on ext4 for nothing recovery reads.
    public func syncData(_ fd: Int32, path: String) throws(IOError) {
        while Glibc.fdatasync(fd) != 0 {
            guard errno == EINTR else { throw IOError(call: "fdatasync", path: path, code: errno) }
        }
    }

    /// `sync_file_range(SYNC_FILE_RANGE_WRITE)`: the pages go to the device while the caller works, and the
    /// `fdatasync` after it waits for the rest (their completion, the device's cache flush). It makes nothing
    /// durable by itself, so a failure here changes nothing: the sync that follows reports what went wrong.
    public func startWriteback(_ fd: Int32) { _ = specd_start_writeback(fd) }

    public func close(_ fd: Int32) { _ = Glibc.close(fd) }

    public func rename(_ from: String, _ to: String) throws(IOError) {
        guard Glibc.rename(from, to) == 0 else { throw IOError(call: "rename", path: from, code: errno) }
    }

    public func remove(_ path: String) throws(IOError) {
        guard unlink(path) == 0 || errno == ENOENT else { throw IOError(call: "unlink", path: path, code: errno) }
    }

    public func fsyncDirectory(_ path: String) throws(IOError) {
        let fd = Glibc.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw IOError(call: "open", path: path, code: errno) }
        defer { _ = Glibc.close(fd) }
        guard Glibc.fsync(fd) == 0 else { throw IOError(call: "fsync", path: path, code: errno) }
    }

    public func read(_ path: String) throws(IOError) -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else { throw IOError(call: "read", path: path, code: ENOENT) }
        return [UInt8](data)
    }

    public func list(_ directory: String) throws(IOError) -> [String] {
        do {
            return try FileManager.default.contentsOfDirectory(atPath: directory)
        } catch {
            throw IOError(call: "opendir", path: directory, code: ENOENT)
        }
    }

    public func truncate(_ path: String, to size: Int) throws(IOError) {
        guard Glibc.truncate(path, off_t(size)) == 0 else { throw IOError(call: "truncate", path: path, code: errno) }
    }

    public func createDirectory(_ path: String) throws(IOError) {
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw IOError(call: "mkdir", path: path, code: EACCES)
        }
    }

    /// Zeros written with `pwrite`, so the descriptor stays at the records' end. Overwriting written blocks is
    /// what makes a later `fdatasync` cheap on ext4 (about 100 µs against 160 µs for an append here, two sleeps
    /// against three and a half): unwritten extents from `fallocate` would still be converted, in the journal.
    public func reserve(_ fd: Int32, from offset: Int, count: Int, path: String) throws(IOError) -> Bool {
        let piece = 64 << 10
        let zeros = UnsafeMutableRawPointer.allocate(byteCount: piece, alignment: 4096)
        defer { zeros.deallocate() }
        zeros.initializeMemory(as: UInt8.self, repeating: 0, count: piece)
        var done = 0
        while done < count {
            let length = min(piece, count - done)
            let written = pwrite(fd, zeros, length, off_t(offset + done))
            if written < 0 {
                if errno == EINTR { continue }
                throw IOError(call: "pwrite", path: path, code: errno)
            }
            guard written > 0 else { throw IOError(call: "pwrite", path: path, code: EIO) }
            done += written
        }
        return true
    }

    public func size(_ path: String) -> Int? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int(info.st_size)
    }
}
