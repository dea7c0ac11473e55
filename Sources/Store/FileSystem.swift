import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Every file operation the store performs, behind a protocol so tests can fail any single call
/// (EIO, ENOSPC, short writes) and check that nothing unacknowledged is ever acknowledged.
public protocol FileSystem: Sendable {
    func openForAppend(_ path: String) throws(IOError) -> Int32
    func openForWrite(_ path: String) throws(IOError) -> Int32
    /// May write fewer bytes than given (a short write); the caller loops.
    func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws(IOError) -> Int
    func fsync(_ fd: Int32, path: String) throws(IOError)
    /// Makes the file's data durable, and of its metadata what reading that data back needs (its size), but not
    /// its timestamps: what an appended log needs before it acknowledges (POSIX `fdatasync`). Defaults to `fsync`.
    func syncData(_ fd: Int32, path: String) throws(IOError)
    func close(_ fd: Int32)
    func rename(_ from: String, _ to: String) throws(IOError)
    func remove(_ path: String) throws(IOError)
    func fsyncDirectory(_ path: String) throws(IOError)
    func read(_ path: String) throws(IOError) -> [UInt8]
    /// Hands the file to `body` in order, in pieces of at most `chunkSize` bytes, until the end or until `body`
    /// returns false; the buffer is valid only during the call (see `FileSystem+Chunks.swift`).
    func readChunks(_ path: String, chunkSize: Int, _ body: (UnsafeRawBufferPointer) -> Bool) throws(IOError)
    func list(_ directory: String) throws(IOError) -> [String]
    func truncate(_ path: String, to size: Int) throws(IOError)
    func createDirectory(_ path: String) throws(IOError)
    func size(_ path: String) -> Int?
    /// Zero-fills `count` bytes from `offset`, the file's end, leaving the descriptor where it is: later writes
    /// overwrite blocks already allocated and written, so a data sync of them flushes data alone, where an append
    /// also commits the file's new size to the journal. Returns false when the file system keeps no such space
    /// (the default): writes then grow the file as before.
    func reserve(_ fd: Int32, from offset: Int, count: Int, path: String) throws(IOError) -> Bool
    /// Starts writing what was written to `fd` to the device, without waiting for it: a `syncData` that follows
    /// then waits only for what is still out, so the work a caller does between the two overlaps the disk's. Best
    /// effort, no error (the sync reports any). Does nothing by default.
    func startWriteback(_ fd: Int32)
}

extension FileSystem {
    public func syncData(_ fd: Int32, path: String) throws(IOError) { try fsync(fd, path: path) }

    public func reserve(_ fd: Int32, from offset: Int, count: Int, path: String) throws(IOError) -> Bool { false }

    public func startWriteback(_ fd: Int32) {}

    /// Writes everything, looping over short writes.
    public func writeAll(_ fd: Int32, _ bytes: [UInt8], path: String) throws(IOError) {
        var offset = 0
        while offset < bytes.count {
            let written: Int
            do {
                written = try bytes.withUnsafeBytes { raw in
                    try write(fd, UnsafeRawBufferPointer(rebasing: raw[offset...]), path: path)
                }
            } catch let error as IOError {
                throw error
            } catch {
                throw IOError(call: "write", path: path, code: EIO)
            }
            guard written > 0 else { throw IOError(call: "write", path: path, code: EIO) }
            offset += written
        }
    }
}
