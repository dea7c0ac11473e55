import Foundation
import Rules
import Synchronization
import Testing

@testable import Store

/// Checking a just-written snapshot and loading one at start stream the file in small pieces: neither ever holds
/// the whole file, so a snapshot costs its users' memory once, not again (and again for the copy) at every check.
@Suite struct SnapshotStreamingTests {
    /// A user with enough history that a few thousand of them make a snapshot of several megabytes.
    static func context(_ index: Int) -> UserContext {
        var context = UserContext()
        context.counters["screen_views"] = index
        context.attributes["plan"] = .string("pro-\(index % 7)")
        context.donations["appStarted"] = DonationSummary(count: 100, recent: (0..<100).map { t0 + Int64($0 * 1000 + index) })
        return context
    }

    /// The snapshot bytes `SnapshotFile.write` produces for `users` such users.
    static func snapshotBytes(users: Int, seq: UInt64 = 9) throws -> [UInt8] {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var shard: [ByteKey: UserContext] = [:]
        for index in 0..<users { shard[ByteKey("user-\(index)")] = context(index) }
        let written = try SnapshotFile.write([UserTable(users: shard)], seq: seq, directory: directory, fileSystem: PosixFileSystem())
        return try PosixFileSystem().read(written.path)
    }

    static let largeSnapshot = try! snapshotBytes(users: 5_000)

    /// Feeds `bytes` in pieces of `chunk` bytes; returns what was decoded and the decoder's peak buffer.
    static func decode(_ bytes: [UInt8], chunk: Int) throws -> (seq: UInt64, users: [ByteKey: UserContext], peak: Int) {
        var decoder = SnapshotDecoder(size: bytes.count)
        var users: [ByteKey: UserContext] = [:]
        var offset = 0
        while offset < bytes.count {
            let end = min(bytes.count, offset + chunk)
            try bytes.withUnsafeBytes { raw in
                try decoder.feed(UnsafeRawBufferPointer(rebasing: raw[offset..<end])) { user, context throws(SnapshotFile.ReadFailure) in
                    try SnapshotFile.add(user, context, to: &users)
                }
            }
            offset = end
        }
        let header = try decoder.finish()
        return (header.seq, users, decoder.peakBufferedBytes)
    }

    // MARK: - The decoder

    @Test func decoder_fedInChunks_holdsAboutOneChunkNeverTheFile() throws {
        let bytes = Self.largeSnapshot
        #expect(bytes.count > 1 << 20)
        let decoded = try Self.decode(bytes, chunk: SnapshotFile.readChunkSize)
        #expect(decoded.users.count == 5_000)
        // One chunk plus what was left of the user it cut (each user here is well under a kilobyte).
        #expect(decoded.peak <= SnapshotFile.readChunkSize + 1024)
    }

    @Test(arguments: [1, 3, 4, 23, 24, 25, 4096, 1 << 16, Int.max])
    func decoder_anySplit_decodesWhatTheWholeReadDecodes(chunk: Int) throws {
        let bytes = try Self.snapshotBytes(users: 40)
        let whole = try SnapshotFile.read(bytes)
        let split = try Self.decode(bytes, chunk: chunk)
        #expect(split.seq == whole.seq)
        #expect(split.users == whole.users)
    }

    /// Every hostile snapshot the whole-buffer reader refuses is refused just the same byte by byte.
    @Test(arguments: HostileInputTests.hostileSnapshots)
    func decoder_hostileSnapshotByteByByte_isRefused(_ input: HostileInputTests.HostileSnapshot) {
        #expect(throws: SnapshotFile.ReadFailure.self) { _ = try Self.decode(input.bytes, chunk: 1) }
    }

    @Test(arguments: [0, 7, 8, 23, 24, 500, -5, -4, -1])
    func decoder_fileCutShort_isRefusedNamingWhereItEnded(cut: Int) throws {
        let bytes = try Self.snapshotBytes(users: 3)
        let kept = Array(bytes.prefix(cut >= 0 ? cut : bytes.count + cut))
        // Without the size up front (a reader that does not know it) the cut is found at the end of the bytes.
        var decoder = SnapshotDecoder()
        #expect(throws: SnapshotFile.ReadFailure.self) {
            try decoder.feed(kept) { _, _ throws(SnapshotFile.ReadFailure) in }
            _ = try decoder.finish()
        }
    }

    // MARK: - The store

    /// The reported growth: every snapshot was read back whole (and copied once more into an array) to be verified.
    @Test func snapshotVerification_streamsTheFile_neverReadsItWhole() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let fileSystem = ReadRecordingFileSystem()
        let database = try Database(options: .init(directory: directory, fsync: .never, snapshotEvery: 1_000_000), fileSystem: fileSystem)
        for index in 0..<2_000 {
            _ = try database.writeAndWait(mutation("user-\(index)", .setAttribute(key: "bio", value: .string(String(repeating: "x", count: 600)))))
        }
        try database.takeSnapshot()
        let snapshot = try #require(fileSystem.snapshotSizes.max())
        #expect(snapshot > 1 << 20)
        #expect(fileSystem.wholeSnapshotReads == 0)
        #expect(fileSystem.largestSnapshotChunk <= SnapshotFile.readChunkSize)
        #expect(fileSystem.snapshotBytesStreamed == snapshot)
        try database.close()
    }

    @Test func recovery_streamsTheSnapshot_andLoadsEveryUser() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let first = try Database(options: .init(directory: directory, fsync: .never))
        for index in 0..<2_000 { _ = try first.writeAndWait(mutation("user-\(index)", .increment(counter: "c", by: index))) }
        try first.close()
        let fileSystem = ReadRecordingFileSystem()
        let reopened = try Database(options: .init(directory: directory, fsync: .never), fileSystem: fileSystem)
        #expect(reopened.recovery.snapshot != nil)
        #expect(fileSystem.wholeSnapshotReads == 0)
        #expect(reopened.store.userCount == 2_000)
        #expect(reopened.store.context(of: "user-1999")?.counters["c"] == 1_999)
    }
}

/// The real file system, counting how snapshot files are read: whole (`read`) or streamed (`readChunks`).
final class ReadRecordingFileSystem: FileSystem, @unchecked Sendable {
    private let real = PosixFileSystem()
    private let counts = Mutex<(whole: Int, largestChunk: Int, streamed: Int, sizes: [Int])>((0, 0, 0, []))

    var wholeSnapshotReads: Int { counts.withLock { $0.whole } }
    var largestSnapshotChunk: Int { counts.withLock { $0.largestChunk } }
    var snapshotBytesStreamed: Int { counts.withLock { $0.streamed } }
    var snapshotSizes: [Int] { counts.withLock { $0.sizes } }

    func read(_ path: String) throws(IOError) -> [UInt8] {
        let bytes = try real.read(path)
        if path.hasSuffix(".snap") {
            counts.withLock {
                $0.whole += 1
                $0.sizes.append(bytes.count)
            }
        }
        return bytes
    }

    func readChunks(_ path: String, chunkSize: Int, _ body: (UnsafeRawBufferPointer) -> Bool) throws(IOError) {
        guard path.hasSuffix(".snap") else { return try real.readChunks(path, chunkSize: chunkSize, body) }
        if let size = real.size(path) { counts.withLock { $0.sizes.append(size) } }
        try real.readChunks(path, chunkSize: chunkSize) { chunk in
            counts.withLock {
                $0.largestChunk = max($0.largestChunk, chunk.count)
                $0.streamed += chunk.count
            }
            return body(chunk)
        }
    }

    func openForAppend(_ path: String) throws(IOError) -> Int32 { try real.openForAppend(path) }
    func openForWrite(_ path: String) throws(IOError) -> Int32 { try real.openForWrite(path) }
    func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws(IOError) -> Int { try real.write(fd, bytes, path: path) }
    func fsync(_ fd: Int32, path: String) throws(IOError) { try real.fsync(fd, path: path) }
    func close(_ fd: Int32) { real.close(fd) }
    func rename(_ from: String, _ to: String) throws(IOError) { try real.rename(from, to) }
    func remove(_ path: String) throws(IOError) { try real.remove(path) }
    func fsyncDirectory(_ path: String) throws(IOError) { try real.fsyncDirectory(path) }
    func list(_ directory: String) throws(IOError) -> [String] { try real.list(directory) }
    func truncate(_ path: String, to size: Int) throws(IOError) { try real.truncate(path, to: size) }
    func createDirectory(_ path: String) throws(IOError) { try real.createDirectory(path) }
    func size(_ path: String) -> Int? { real.size(path) }
}
