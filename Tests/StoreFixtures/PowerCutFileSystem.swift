import Foundation
import Store
import Synchronization
import TestRandom

#if canImport(Glibc)
import Glibc
#endif

/// An in-memory file system that can lose power.
///
/// It keeps, for every file, what was written and what an `fsync` made durable, and for the directory, which
/// creates, renames and unlinks a directory `fsync` made durable. At the cut (after a chosen number of mutating
/// calls) it decides what the disk holds, as a real disk may after a power loss:
/// - a file's bytes written since its last `fsync` are kept, dropped, torn at a random byte, or kept with a zeroed
///   end (blocks allocated but never written);
/// - a file truncated or rewritten since its last `fsync` comes back either as it was then or as it is now;
/// - each create, rename and unlink since the last directory `fsync` survives or not, independently.
/// From the cut on, every call fails with EIO: the process that owned the disk is dead. `afterCut()` is the disk
/// the next boot finds.
public final class PowerCutFileSystem: FileSystem, @unchecked Sendable {
    struct File {
        var current: [UInt8] = []
        var durable: [UInt8] = []
        /// Truncated or opened with O_TRUNC since the last fsync: `current` need not extend `durable`.
        var rewritten = false
    }

    enum DirectoryChange {
        case link(String, Int)
        case rename(String, String, Int)
        case unlink(String, Int)
    }

    struct State {
        var files: [Int: File] = [:]
        var names: [String: Int] = [:]
        var durableNames: [String: Int] = [:]
        var pending: [DirectoryChange] = []
        var descriptors: [Int32: Int] = [:]
        /// Each descriptor's position: writes go there, as a descriptor opened without `O_APPEND` does.
        var positions: [Int32: Int] = [:]
        var nextDescriptor: Int32 = 100
        var nextFile = 1
        var calls = 0
        var cutAt = Int.max
        /// The disk as the cut left it.
        var afterCut: [String: [UInt8]]?
        var random: SplitMix
    }

    private let state: Mutex<State>

    /// A disk holding `files` (path → contents), all of it durable. `seed` drives what the cut loses.
    public init(seed: UInt64, files: [String: [UInt8]] = [:]) {
        var initial = State(random: SplitMix(seed: seed))
        for (path, bytes) in files {
            initial.files[initial.nextFile] = File(current: bytes, durable: bytes)
            initial.names[path] = initial.nextFile
            initial.durableNames[path] = initial.nextFile
            initial.nextFile += 1
        }
        state = Mutex(initial)
    }

    /// Cuts the power when the `calls`-th mutating call from now begins (that call fails).
    public func cut(afterCalls calls: Int) { state.withLock { $0.cutAt = $0.calls + max(1, calls) } }

    /// Cuts the power now.
    public func cutNow() { state.withLock { Self.powerCut(&$0) } }

    public var isCut: Bool { state.withLock { $0.afterCut != nil } }
    public var calls: Int { state.withLock { $0.calls } }

    /// The disk the next boot finds (cutting now if the power is still on), as a fresh file system.
    public func afterCut(seed: UInt64) -> PowerCutFileSystem {
        let files = state.withLock { state -> [String: [UInt8]] in
            if state.afterCut == nil { Self.powerCut(&state) }
            return state.afterCut ?? [:]
        }
        return PowerCutFileSystem(seed: seed, files: files)
    }

    /// Every path and its current contents, for tests that look at the disk.
    public var contents: [String: [UInt8]] {
        state.withLock { state in state.names.compactMapValues { state.files[$0]?.current } }
    }

    // MARK: - The cut

    private static func powerCut(_ state: inout State) {
        guard state.afterCut == nil else { return }
        var names = state.durableNames
        for change in state.pending where state.random.next(upTo: 2) == 0 {
            switch change {
            case .link(let name, let file): names[name] = file
            case .rename(let from, let to, let file):
                if names[from] == file {
                    names[from] = nil
                    names[to] = file
                }
            case .unlink(let name, let file): if names[name] == file { names[name] = nil }
            }
        }
        var disk: [String: [UInt8]] = [:]
        for (name, id) in names {
            guard let file = state.files[id] else { continue }
            disk[name] = surviving(file, &state.random)
        }
        state.afterCut = disk
        state.pending.removeAll()
    }

    private static func surviving(_ file: File, _ random: inout SplitMix) -> [UInt8] {
        if file.rewritten, random.next(upTo: 2) == 0 { return file.durable }
        // The bytes both versions share are safe; what follows in `current` was never synced.
        var synced = 0
        if !file.rewritten {
            // Bytes overwritten in place since the last fsync (records over reserved zeros): each 4 KiB page
            // reached the disk or not, in any combination, as nothing orders them.
            synced = min(file.durable.count, file.current.count)
            var merged = Array(file.current[0..<synced])
            var page = 0
            while page < synced {
                let upper = min(page + 4096, synced)
                if file.durable[page..<upper] != file.current[page..<upper], random.next(upTo: 2) == 0 {
                    merged.replaceSubrange(page..<upper, with: file.durable[page..<upper])
                }
                page = upper
            }
            let unsynced = file.current.count - synced
            guard unsynced > 0 else { return merged }
            switch random.next(upTo: 3) {
            case 0: return merged
            case 1: return merged + file.current[synced...]
            default: return merged + file.current[synced..<(synced + random.next(upTo: unsynced + 1))]
            }
        } else if file.current.starts(with: file.durable) {
            synced = min(file.durable.count, file.current.count)
        } else {
            while synced < min(file.durable.count, file.current.count), file.durable[synced] == file.current[synced] { synced += 1 }
        }
        let unsynced = file.current.count - synced
        guard unsynced > 0 else { return file.current }
        var result = Array(file.current[0..<synced])
        switch random.next(upTo: 4) {
        case 0: break
        case 1: result += file.current[synced...]
        case 2: result += file.current[synced..<(synced + random.next(upTo: unsynced + 1))]
        default:
            let kept = random.next(upTo: unsynced + 1)
            let zeroedFrom = random.next(upTo: kept + 1)
            result += file.current[synced..<(synced + zeroedFrom)]
            result += [UInt8](repeating: 0, count: kept - zeroedFrom)
        }
        return result
    }

    /// Counts a mutating call; false (and the power cut) when it is the one the cut falls on, or after it.
    private static func proceed(_ state: inout State) -> Bool {
        guard state.afterCut == nil else { return false }
        state.calls += 1
        if state.calls >= state.cutAt {
            powerCut(&state)
            return false
        }
        return true
    }

    private static func dead(_ call: String, _ path: String) -> IOError { IOError(call: call, path: path, code: EIO) }

    // MARK: - FileSystem

    private func open(_ path: String, truncating: Bool) throws(IOError) -> Int32 {
        let result = state.withLock { state -> Int32? in
            guard Self.proceed(&state) else { return nil }
            let id: Int
            if let existing = state.names[path] {
                id = existing
                if truncating, state.files[id]?.current.isEmpty == false {
                    state.files[id]?.current.removeAll()
                    state.files[id]?.rewritten = true
                }
            } else {
                id = state.nextFile
                state.nextFile += 1
                state.files[id] = File()
                state.names[path] = id
                state.pending.append(.link(path, id))
            }
            let fd = state.nextDescriptor
            state.nextDescriptor += 1
            state.descriptors[fd] = id
            state.positions[fd] = state.files[id]?.current.count ?? 0
            return fd
        }
        guard let result else { throw Self.dead("open", path) }
        return result
    }

    public func openForAppend(_ path: String) throws(IOError) -> Int32 { try open(path, truncating: false) }
    public func openForWrite(_ path: String) throws(IOError) -> Int32 { try open(path, truncating: true) }

    public func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws(IOError) -> Int {
        let written = state.withLock { state -> Int? in
            guard Self.proceed(&state), let id = state.descriptors[fd], var file = state.files[id] else { return nil }
            let at = state.positions[fd] ?? file.current.count
            if at > file.current.count { file.current += [UInt8](repeating: 0, count: at - file.current.count) }
            let overlap = min(bytes.count, file.current.count - at)
            file.current.replaceSubrange(at..<(at + overlap), with: bytes[0..<overlap])
            file.current.append(contentsOf: bytes[overlap...])
            state.files[id] = file
            state.positions[fd] = at + bytes.count
            return bytes.count
        }
        guard let written else { throw Self.dead("write", path) }
        return written
    }

    public func fsync(_ fd: Int32, path: String) throws(IOError) {
        let done = state.withLock { state -> Bool in
            guard Self.proceed(&state), let id = state.descriptors[fd], var file = state.files[id] else { return false }
            file.durable = file.current
            file.rewritten = false
            state.files[id] = file
            return true
        }
        guard done else { throw Self.dead("fsync", path) }
    }

    public func close(_ fd: Int32) {
        state.withLock {
            _ = $0.descriptors.removeValue(forKey: fd)
            _ = $0.positions.removeValue(forKey: fd)
        }
    }

    /// Zeros written at `offset`, as `pwrite` does: the position stays.
    public func reserve(_ fd: Int32, from offset: Int, count: Int, path: String) throws(IOError) -> Bool {
        let done = state.withLock { state -> Bool in
            guard Self.proceed(&state), let id = state.descriptors[fd], var file = state.files[id] else { return false }
            if offset + count > file.current.count { file.current += [UInt8](repeating: 0, count: offset + count - file.current.count) }
            file.current.replaceSubrange(offset..<(offset + count), with: [UInt8](repeating: 0, count: count))
            state.files[id] = file
            return true
        }
        guard done else { throw Self.dead("pwrite", path) }
        return true
    }

    public func rename(_ from: String, _ to: String) throws(IOError) {
        let done = state.withLock { state -> Bool? in
            guard Self.proceed(&state) else { return nil }
            guard let id = state.names[from] else { return false }
            state.names[from] = nil
            state.names[to] = id
            state.pending.append(.rename(from, to, id))
            return true
        }
        switch done {
        case nil: throw Self.dead("rename", from)
        case false?: throw IOError(call: "rename", path: from, code: ENOENT)
        case true?: return
        }
    }

    public func remove(_ path: String) throws(IOError) {
        let done = state.withLock { state -> Bool in
            guard Self.proceed(&state) else { return false }
            if let id = state.names.removeValue(forKey: path) { state.pending.append(.unlink(path, id)) }
            return true
        }
        guard done else { throw Self.dead("unlink", path) }
    }

    public func fsyncDirectory(_ path: String) throws(IOError) {
        let done = state.withLock { state -> Bool in
            guard Self.proceed(&state) else { return false }
            state.durableNames = state.names
            state.pending.removeAll()
            return true
        }
        guard done else { throw Self.dead("fsync", path) }
    }

    public func read(_ path: String) throws(IOError) -> [UInt8] {
        let result = state.withLock { state -> Result<[UInt8], IOError> in
            guard state.afterCut == nil else { return .failure(Self.dead("read", path)) }
            guard let id = state.names[path], let file = state.files[id] else { return .failure(IOError(call: "read", path: path, code: ENOENT)) }
            return .success(file.current)
        }
        return try result.get()
    }

    public func list(_ directory: String) throws(IOError) -> [String] {
        let result = state.withLock { state -> [String]? in
            guard state.afterCut == nil else { return nil }
            let prefix = directory.hasSuffix("/") ? directory : directory + "/"
            return state.names.keys.filter { $0.hasPrefix(prefix) && !$0.dropFirst(prefix.count).contains("/") }.map {
                String($0.dropFirst(prefix.count))
            }
        }
        guard let result else { throw Self.dead("opendir", directory) }
        return result
    }

    public func truncate(_ path: String, to size: Int) throws(IOError) {
        let done = state.withLock { state -> Bool? in
            guard Self.proceed(&state) else { return nil }
            guard let id = state.names[path], var file = state.files[id] else { return false }
            if size < file.current.count {
                file.current.removeSubrange(size...)
                file.rewritten = true
            } else {
                file.current += [UInt8](repeating: 0, count: size - file.current.count)
            }
            state.files[id] = file
            return true
        }
        switch done {
        case nil: throw Self.dead("truncate", path)
        case false?: throw IOError(call: "truncate", path: path, code: ENOENT)
        case true?: return
        }
    }

    public func createDirectory(_ path: String) throws(IOError) {
        guard !isCut else { throw Self.dead("mkdir", path) }
    }

    public func size(_ path: String) -> Int? {
        state.withLock { state in state.names[path].flatMap { state.files[$0]?.current.count } }
    }
}
