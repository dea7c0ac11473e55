import Foundation
import Store
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The real file system, except that once armed it flips one byte in the next snapshot written: the damage a bad
/// disk, controller or kernel bug does between `write` and the platter, which only reading the file back can catch.
public final class CorruptingFileSystem: FileSystem, @unchecked Sendable {
    private let real = PosixFileSystem()
    private let armed = Mutex<Bool>(false)

    public init() {}

    /// The next write to a snapshot's temporary file lands with one bit flipped.
    public func corruptNextSnapshot() { armed.withLock { $0 = true } }

    public func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws(IOError) -> Int {
        let corrupt =
            path.hasSuffix(".snap.tmp") && bytes.count > 16
            && armed.withLock { armed in
                defer { armed = false }
                return armed
            }
        guard corrupt else { return try real.write(fd, bytes, path: path) }
        var damaged = [UInt8](bytes)
        damaged[damaged.count / 2] ^= 0x04
        do {
            return try damaged.withUnsafeBytes { raw in try real.write(fd, raw, path: path) }
        } catch let error as IOError {
            throw error
        } catch {
            throw IOError(call: "write", path: path, code: EIO)
        }
    }

    public func openForAppend(_ path: String) throws(IOError) -> Int32 { try real.openForAppend(path) }
    public func openForWrite(_ path: String) throws(IOError) -> Int32 { try real.openForWrite(path) }
    public func fsync(_ fd: Int32, path: String) throws(IOError) { try real.fsync(fd, path: path) }
    public func close(_ fd: Int32) { real.close(fd) }
    public func reserve(_ fd: Int32, from offset: Int, count: Int, path: String) throws(IOError) -> Bool {
        try real.reserve(fd, from: offset, count: count, path: path)
    }
    public func rename(_ from: String, _ to: String) throws(IOError) { try real.rename(from, to) }
    public func remove(_ path: String) throws(IOError) { try real.remove(path) }
    public func fsyncDirectory(_ path: String) throws(IOError) { try real.fsyncDirectory(path) }
    public func read(_ path: String) throws(IOError) -> [UInt8] { try real.read(path) }
    public func list(_ directory: String) throws(IOError) -> [String] { try real.list(directory) }
    public func truncate(_ path: String, to size: Int) throws(IOError) { try real.truncate(path, to: size) }
    public func createDirectory(_ path: String) throws(IOError) { try real.createDirectory(path) }
    public func size(_ path: String) -> Int? { real.size(path) }
}
