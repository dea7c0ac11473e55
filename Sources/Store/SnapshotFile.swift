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

    /// Streams the shards out in 1 MiB pieces so a large state never needs one huge buffer. Returns the path and
    /// the number of users written.
    static func write(_ shards: [[ByteKey: UserContext]], seq: UInt64, directory: String, fileSystem: FileSystem) throws(IOError) -> (path: String, users: Int) {
        let final = (directory as NSString).appendingPathComponent(name(seq: seq))
        let temporary = final + ".tmp"
        let fd = try fileSystem.openForWrite(temporary)
        var crc: UInt32 = 0
        var writer = BinaryWriter()
        let users = shards.reduce(0) { $0 + $1.count }
        writer.bytes = magic
        writer.fixed64(seq)
        writer.fixed64(UInt64(users))
        do throws(IOError) {
            for shard in shards {
                for (user, context) in shard {
                    var record = BinaryWriter()
                    ContextCodec.encode(user: user.string, context, into: &record)
                    writer.fixed32(UInt32(record.bytes.count))
                    writer.bytes += record.bytes
                    if writer.bytes.count >= 1 << 20 {
                        crc = writer.bytes.withUnsafeBytes { CRC32C.checksum($0, initial: crc) }
                        try fileSystem.writeAll(fd, writer.bytes, path: temporary)
                        writer.bytes.removeAll(keepingCapacity: true)
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

    /// Reads a just-written snapshot back from the file system and checks it whole: checksum, seq, every user
    /// decodes, and as many users as were written. Nothing it replaces may be deleted before this passed.
    static func verify(_ path: String, seq: UInt64, users: Int, fileSystem: FileSystem) throws(IOError) {
        let bytes = try fileSystem.read(path)
        let failure: String
        do throws(ReadFailure) {
            let header = try visit(bytes) { _, _ throws(ReadFailure) in }
            if header.seq == seq, header.count == users { return }
            failure = "holds seq \(header.seq) and \(header.count) users, not seq \(seq) and \(users)"
        } catch {
            failure = error.description
        }
        throw IOError(call: "verify", path: path, code: EIO, detail: failure)
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

    /// Decodes a whole snapshot. Any damage — short, bad checksum, a count or length that does not fit, a record
    /// that does not decode, one id twice — is a `ReadFailure` naming the offset; nothing traps, and nothing is
    /// allocated for a count the file cannot hold.
    static func read(_ bytes: [UInt8]) throws(ReadFailure) -> (seq: UInt64, users: [ByteKey: UserContext]) {
        var users: [ByteKey: UserContext] = [:]
        var reserved = false
        let header = try visit(bytes) { user, context throws(ReadFailure) in
            if !reserved {
                reserved = true
                users.reserveCapacity(min(bytes.count / minimumUserBytes, 1 << 20))
            }
            guard users.updateValue(context, forKey: user) == nil else { throw .corrupt(offset: 0, reason: "user '\(user)' appears twice") }
        }
        return (header.seq, users)
    }

    /// Walks a snapshot, handing each user to `body`, after the checksum has been checked.
    static func visit(_ bytes: [UInt8], _ each: (ByteKey, UserContext) throws(ReadFailure) -> Void) throws(ReadFailure) -> (seq: UInt64, count: Int) {
        guard bytes.count >= headerSize + trailerSize else {
            throw .corrupt(offset: 0, reason: "too short for a snapshot (\(bytes.count) bytes)")
        }
        guard Array(bytes[0..<magic.count]) == magic else { throw .corrupt(offset: 0, reason: "not a snapshot (bad magic)") }
        let end = bytes.count - trailerSize
        var trailer = BinaryReader(bytes, from: end)
        let stored = (try? trailer.fixed32()) ?? 0
        let computed = bytes.withUnsafeBytes { CRC32C.checksum(UnsafeRawBufferPointer(rebasing: $0[0..<end])) }
        guard stored == computed else { throw .corrupt(offset: end, reason: "checksum mismatch (the file is damaged or cut short)") }
        var reader = BinaryReader(bytes, from: magic.count, to: end)
        let seq: UInt64
        let count: UInt64
        do throws(BinaryReader.Failure) {
            seq = try reader.fixed64()
            count = try reader.fixed64()
        } catch {
            throw .corrupt(offset: magic.count, reason: "header cut short")
        }
        guard count <= UInt64((end - headerSize) / minimumUserBytes) else {
            throw .corrupt(offset: 16, reason: "user count \(count) does not fit in \(end - headerSize) bytes")
        }
        for index in 0..<Int(count) {
            let start = reader.offset
            let context: UserContext
            let user: String
            do throws(BinaryReader.Failure) {
                let length = Int(try reader.fixed32())
                guard length <= end - reader.offset else { throw .truncated }
                var record = BinaryReader(bytes, from: reader.offset, to: reader.offset + length)
                (user, context) = try ContextCodec.decode(&record)
                guard record.isAtEnd else { throw .malformed }
                reader.offset += length
            } catch {
                throw .corrupt(offset: start, reason: "user \(index) of \(count) is malformed (\(error))")
            }
            do throws(ReadFailure) {
                try each(ByteKey(user), context)
            } catch {
                throw .corrupt(offset: start, reason: error.reason)
            }
        }
        guard reader.isAtEnd else { throw .corrupt(offset: reader.offset, reason: "\(end - reader.offset) bytes after the last user") }
        return (seq, Int(count))
    }
}
