import Foundation
import Store
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Wraps the real file system and fails the Nth mutating call (write, fsync, rename, open, directory fsync), or
/// every mutating call `failWhen` picks (a full disk that only some files hit).
public final class FaultyFileSystem: FileSystem, @unchecked Sendable {
    public enum Fault: Sendable {
        case error(Int32)
        /// Writes half the bytes, then every later write fails with ENOSPC.
        case shortWrite
    }

    private let real = PosixFileSystem()
    private let state = Mutex<(calls: Int, tripped: Bool, journal: [String])>((0, false, []))
    let failAt: Int
    let fault: Fault
    let failWhen: (@Sendable (_ call: String, _ path: String) -> Bool)?

    public init(failAt: Int = .max, fault: Fault = .error(EIO), failWhen: (@Sendable (_ call: String, _ path: String) -> Bool)? = nil) {
        self.failAt = failAt
        self.fault = fault
        self.failWhen = failWhen
    }

    public var calls: Int { state.withLock { $0.calls } }
    /// Every mutating call so far, as "call path" (for tests that check the order of writes and fsyncs).
    public var journal: [String] { state.withLock { $0.journal } }

    /// Counts the call; true when this call must fail.
    private func tick(_ call: String, _ path: String) -> Bool {
        state.withLock { state in
            state.calls += 1
            state.journal.append(call + " " + path)
            if state.calls == failAt {
                state.tripped = true
                return true
            }
            return failWhen?(call, path) ?? false
        }
    }

    private var tripped: Bool { state.withLock { $0.tripped } }

    private func failure(_ call: String, _ path: String) -> IOError {
        if case .error(let code) = fault { return IOError(call: call, path: path, code: code) }
        return IOError(call: call, path: path, code: ENOSPC)
    }

    public func openForAppend(_ path: String) throws(IOError) -> Int32 {
        if tick("open", path) { throw failure("open", path) }
        return try real.openForAppend(path)
    }

    public func openForWrite(_ path: String) throws(IOError) -> Int32 {
        if tick("open", path) { throw failure("open", path) }
        return try real.openForWrite(path)
    }

    public func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws(IOError) -> Int {
        if tick("write", path) {
            if case .shortWrite = fault, bytes.count > 1 {
                return try real.write(fd, UnsafeRawBufferPointer(rebasing: bytes[0..<(bytes.count / 2)]), path: path)
            }
            throw failure("write", path)
        }
        if case .shortWrite = fault, tripped { throw IOError(call: "write", path: path, code: ENOSPC) }
        return try real.write(fd, bytes, path: path)
    }

    public func fsync(_ fd: Int32, path: String) throws(IOError) {
        if tick("fsync", path) { throw failure("fsync", path) }
        try real.fsync(fd, path: path)
    }

    public func close(_ fd: Int32) { real.close(fd) }
    public func reserve(_ fd: Int32, from offset: Int, count: Int, path: String) throws(IOError) -> Bool {
        try real.reserve(fd, from: offset, count: count, path: path)
    }

    public func rename(_ from: String, _ to: String) throws(IOError) {
        if tick("rename", from) { throw failure("rename", from) }
        try real.rename(from, to)
    }

    public func remove(_ path: String) throws(IOError) { try real.remove(path) }

    public func fsyncDirectory(_ path: String) throws(IOError) {
        if tick("fsyncDirectory", path) { throw failure("fsync", path) }
        try real.fsyncDirectory(path)
    }

    public func read(_ path: String) throws(IOError) -> [UInt8] { try real.read(path) }
    public func list(_ directory: String) throws(IOError) -> [String] { try real.list(directory) }
    public func truncate(_ path: String, to size: Int) throws(IOError) { try real.truncate(path, to: size) }
    public func createDirectory(_ path: String) throws(IOError) { try real.createDirectory(path) }
    public func size(_ path: String) -> Int? { real.size(path) }
}
