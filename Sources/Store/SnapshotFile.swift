import Foundation
import Rules

/// A snapshot: `"SPECDSN1"`, the seq it covers, the user count, each user as `[length u32][context]`, then a
/// CRC-32C of everything before it. Written to a temp file, fsynced, renamed into place, the directory fsynced, and
/// then read back and checked before anything it replaces is deleted (README, "Data and durability").
enum SnapshotFile {
    static let magic = Array("SPECDSN1".utf8)
    /// Magic, seq and count before the first user; the CRC after the last.
    static let headerSize = 24
    static let trailerSize = 4
    /// The fewest bytes one user can take (length, a one-byte id, launched, zone and seven empty counts), so a
    /// count larger than the bytes left can be refused before anything is allocated for it.
    static let minimumUserBytes = 4 + 2 + 1 + 1 + 7

    static func name(seq: UInt64) -> String {
        let digits = String(seq)
        return "snapshot-" + String(repeating: "0", count: max(0, 20 - digits.count)) + digits + ".snap"
    }

    static func path(in directory: String, seq: UInt64) -> String {
        (directory as NSString).appendingPathComponent(name(seq: seq))
    }

    /// Streams the shards out in 1 MiB pieces so a large state never needs one huge buffer. Returns the path and
    /// the number of users written. Values expired at `now` are left out: they read as missing already, and
    /// this is where they leave the state for good (docs/api.md, "Expiring values"). A user still held as its
    /// record is copied as it stands, unless the record has trailing sections (expiries, display accounting):
    /// those are decoded, so expired values are left out as for any other user.
    static func write(
        _ shards: [UserTable], seq: UInt64, directory: String, fileSystem: FileSystem, now: Instant? = nil
    ) throws(IOError) -> (path: String, users: Int) {
        let final = (directory as NSString).appendingPathComponent(name(seq: seq))
        let temporary = final + ".tmp"
        let fd = try fileSystem.openForWrite(temporary)
        var crc: UInt32 = 0
        var writer = BinaryWriter()
        let users = shards.reduce(0) { $0 + $1.count }
        writer.bytes = magic
        writer.fixed64(seq)
        writer.fixed64(UInt64(users))
        var interner = StringInterner()
        func flushIfFull() throws(IOError) {
            guard writer.bytes.count >= 1 << 20 else { return }
            crc = writer.bytes.withUnsafeBytes { CRC32C.checksum($0, initial: crc) }
            try fileSystem.writeAll(fd, writer.bytes, path: temporary)
            writer.bytes.removeAll(keepingCapacity: true)
        }
        func emit(_ record: [UInt8]) throws(IOError) {
            writer.fixed32(UInt32(record.count))
            writer.bytes += record
            try flushIfFull()
        }
        /// Encoded straight into the file's buffer, its length filled in after: no array made and copied a user.
        func emit(_ user: ByteKey, _ context: UserContext) throws(IOError) {
            let lengthAt = writer.bytes.count
            writer.fixed32(0)
            ContextCodec.encode(user: user.string, now.map { context.removingExpired(at: $0) } ?? context, into: &writer)
            let length = UInt32(writer.bytes.count - lengthAt - 4).littleEndian
            writer.bytes.withUnsafeMutableBytes { $0.storeBytes(of: length, toByteOffset: lengthAt, as: UInt32.self) }
            try flushIfFull()
        }
        do throws(IOError) {
            for shard in shards {
                for (user, context) in shard.users { try emit(user, context) }
                for (user, record) in shard.encoded {
                    if let context = shard.replayed(user, record, interning: &interner) {
                        try emit(user, context)
                    } else if record.hasTrailingSections, now != nil {
                        try emit(user, record.decode(interning: &interner))
                    } else {
                        try emit(record.record)
                    }
                }
            }
            crc = writer.bytes.withUnsafeBytes { CRC32C.checksum($0, initial: crc) }
            writer.fixed32(crc)
            try fileSystem.writeAll(fd, writer.bytes, path: temporary)
            try fileSystem.fsync(fd, path: temporary)
            fileSystem.close(fd)
        } catch {
            fileSystem.close(fd)
            try? fileSystem.remove(temporary)
            throw error
        }
        try fileSystem.rename(temporary, final)
        try fileSystem.fsyncDirectory(directory)
        return (final, users)
    }

    /// Pieces in which snapshots are read back: small enough that checking or loading one holds one piece and one
    /// user, never the file.
    static let readChunkSize = 1 << 16

    /// Reads a just-written snapshot back from the file system and checks it whole: checksum, seq, every user's
    /// record, and as many users as were written. Nothing it replaces may be deleted before this passed. Streams
    /// the file in `readChunkSize` pieces and keeps no user, so it needs one piece and one user of memory.
    ///
    /// Each record is walked by `ContextCodec.check`, which fails wherever decoding fails (the promise startup
    /// rests on too), instead of being decoded: decoding built every user's maps only to drop them, five times
    /// the instructions, and at a million users it was most of a snapshot's time and of a shutdown's.
    static func verify(_ path: String, seq: UInt64, users: Int, fileSystem: FileSystem) throws(IOError) {
        let failure: String
        do throws(ReadFailure) {
            let header = try check(path, fileSystem: fileSystem)
            if header.seq == seq, header.count == users { return }
            failure = "holds seq \(header.seq) and \(header.count) users, not seq \(seq) and \(users)"
        } catch {
            failure = error.description
        }
        throw IOError(call: "verify", path: path, code: EIO, detail: failure)
    }

    /// Checks the snapshot at `path` as `load` would, keeping nothing: framing, checksum, and every record
    /// through `ContextCodec.check`. The first failure is a `ReadFailure` naming the offset and the user.
    static func check(_ path: String, fileSystem: FileSystem) throws(ReadFailure) -> (seq: UInt64, count: Int) {
        try forEachCheckedRecord(path, fileSystem: fileSystem) { _, _, _, _ throws(ReadFailure) in }
    }

    /// Streams the snapshot at `path`, checks each user's record in place (`ContextCodec.check`, which fails
    /// wherever decoding would) and hands it to `body` with the user's id and whether it has trailing sections,
    /// then checks the file's end. A record that does not check is named with the header's user count.
    private static func forEachCheckedRecord(
        _ path: String, fileSystem: FileSystem,
        _ body: (_ buffer: [UInt8], _ range: Range<Int>, _ checked: (user: String, trailing: Bool), _ offset: Int) throws(ReadFailure) -> Void
    ) throws(ReadFailure) -> (seq: UInt64, count: Int) {
        var decoder = SnapshotDecoder(size: fileSystem.size(path))
        // The header's count is the decoder's: a malformed record is kept and spelled out once the decoder returned.
        var malformed: (offset: Int, index: UInt64, failure: BinaryReader.Failure)?
        do throws(ReadFailure) {
            try readPieces(path, fileSystem: fileSystem) { chunk throws(ReadFailure) in
                try decoder.feedRecords(chunk) { buffer, range, offset, index throws(ReadFailure) in
                    var reader = BinaryReader(buffer, from: range.lowerBound, to: range.upperBound)
                    let checked: (user: String, trailing: Bool)
                    do throws(BinaryReader.Failure) {
                        checked = try ContextCodec.check(&reader)
                        guard reader.isAtEnd else { throw .malformed }
                    } catch {
                        malformed = (offset, index, error)
                        throw .corrupt(offset: offset, reason: "malformed")
                    }
                    try body(buffer, range, checked, offset)
                }
            }
        } catch {
            guard let malformed else { throw error }
            throw .corrupt(offset: malformed.offset, reason: "user \(malformed.index) of \(decoder.count) is malformed (\(malformed.failure))")
        }
        return try decoder.finish()
    }

    /// Hands the file to `body` in `readChunkSize` pieces, stopping at the first failure it throws; an unreadable
    /// file is a `ReadFailure` at byte 0.
    private static func readPieces(
        _ path: String, fileSystem: FileSystem, _ body: (UnsafeRawBufferPointer) throws(ReadFailure) -> Void
    ) throws(ReadFailure) {
        var failure: ReadFailure?
        do throws(IOError) {
            try fileSystem.readChunks(path, chunkSize: readChunkSize) { chunk in
                do throws(ReadFailure) {
                    try body(chunk)
                    return true
                } catch {
                    failure = error
                    return false
                }
            }
        } catch {
            throw .corrupt(offset: 0, reason: "unreadable: \(error)")
        }
        if let failure { throw failure }
    }

    /// The snapshot at `path` as the daemon starts from it: every user's record checked (`ContextCodec.check`, so
    /// it fails wherever decoding would) and kept undecoded (`EncodedContext`), spread over `shardCount` tables by
    /// `UserStore.shardIndex`. One id twice is damage: an id always lands in the same shard, so checking each
    /// shard finds it. Streamed: loading holds the records and one piece of the file, never the file as well.
    static func load(_ path: String, fileSystem: FileSystem, shardCount: Int = 1) throws(ReadFailure) -> (seq: UInt64, users: [UserTable]) {
        let shardCount = max(1, shardCount)
        var tables = [UserTable](repeating: UserTable(), count: shardCount)
        let size = fileSystem.size(path) ?? 0
        var reserved = false
        let header = try forEachCheckedRecord(path, fileSystem: fileSystem) { buffer, range, checked, offset throws(ReadFailure) in
            if !reserved {
                reserved = true
                let each = min(size / minimumUserBytes, 1 << 20) / shardCount
                for table in tables.indices { tables[table].reserveEncoded(each) }
            }
            let shard = UserStore.shardIndex(of: checked.user, shardCount: shardCount)
            let context = EncodedContext(record: Array(buffer[range]), hasTrailingSections: checked.trailing)
            guard tables[shard].addEncoded(ByteKey(checked.user), context) else {
                throw .corrupt(offset: offset, reason: "user '\(checked.user)' appears twice")
            }
        }
        return (header.seq, tables)
    }

    enum ReadFailure: Error, Equatable, CustomStringConvertible {
        case corrupt(offset: Int, reason: String)

        var offset: Int {
            switch self {
            case .corrupt(let offset, _): return offset
            }
        }

        var reason: String {
            switch self {
            case .corrupt(_, let reason): return reason
            }
        }

        var description: String { "byte \(offset): \(reason)" }
    }

    /// One user into the users read so far: an id twice is damage (the writer wrote each dictionary key once).
    static func add(_ user: ByteKey, _ context: UserContext, to users: inout [ByteKey: UserContext]) throws(ReadFailure) {
        guard users.updateValue(context, forKey: user) == nil else { throw .corrupt(offset: 0, reason: "user '\(user)' appears twice") }
    }

    /// Decodes a whole snapshot held in memory (tools and fuzzing; the daemon streams with `load`). Any damage —
    /// short, bad checksum, a count or length that does not fit, a record that does not decode, one id twice — is
    /// a `ReadFailure` naming the offset; nothing traps, and nothing is allocated for a count the file cannot hold.
    static func read(_ bytes: [UInt8]) throws(ReadFailure) -> (seq: UInt64, users: [ByteKey: UserContext]) {
        var users: [ByteKey: UserContext] = [:]
        var decoder = SnapshotDecoder(size: bytes.count)
        try decoder.feed(bytes) { user, context throws(ReadFailure) in
            if users.isEmpty { users.reserveCapacity(min(bytes.count / minimumUserBytes, 1 << 20)) }
            try add(user, context, to: &users)
        }
        let header = try decoder.finish()
        return (header.seq, users)
    }
}
