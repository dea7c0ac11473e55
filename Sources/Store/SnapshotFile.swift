import Foundation
import Rules

/// A snapshot: `"SPECDSN1"`, the seq it covers, the user count, each user's context, then a CRC-32C of everything
/// before it. Written to a temp file, fsynced, renamed into place, and the directory fsynced (DESIGN §7).
enum SnapshotFile {
    static let magic = Array("SPECDSN1".utf8)

    static func name(seq: UInt64) -> String {
        let digits = String(seq)
        return "snapshot-" + String(repeating: "0", count: max(0, 20 - digits.count)) + digits + ".snap"
    }

    /// Streams the shards out in 1 MiB pieces so a large state never needs one huge buffer.
    static func write(_ shards: [[String: UserContext]], seq: UInt64, directory: String, fileSystem: FileSystem) throws(IOError) -> String {
        let final = (directory as NSString).appendingPathComponent(name(seq: seq))
        let temporary = final + ".tmp"
        let fd = try fileSystem.openForWrite(temporary)
        var crc: UInt32 = 0
        var writer = BinaryWriter()
        writer.bytes = magic
        writer.fixed64(seq)
        writer.fixed64(UInt64(shards.reduce(0) { $0 + $1.count }))
        do throws(IOError) {
            for shard in shards {
                for (user, context) in shard {
                    var record = BinaryWriter()
                    ContextCodec.encode(user: user, context, into: &record)
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
        return final
    }

    enum ReadFailure: Error, Equatable {
        case corrupt(offset: Int, reason: String)
    }

    static func read(_ bytes: [UInt8]) throws(ReadFailure) -> (seq: UInt64, users: [String: UserContext]) {
        guard bytes.count >= magic.count + 20, Array(bytes[0..<magic.count]) == magic else {
            throw .corrupt(offset: 0, reason: "not a snapshot (bad magic or too short)")
        }
        let body = bytes.count - 4
        var trailer = BinaryReader(bytes, from: body)
        let stored = (try? trailer.fixed32()) ?? 0
        let computed = bytes.withUnsafeBytes { CRC32C.checksum(UnsafeRawBufferPointer(rebasing: $0[0..<body])) }
        guard stored == computed else { throw .corrupt(offset: body, reason: "checksum mismatch") }
        var reader = BinaryReader(bytes, from: magic.count, to: body)
        do throws(BinaryReader.Failure) {
            let seq = try reader.fixed64()
            let count = try reader.fixed64()
            var users: [String: UserContext] = [:]
            users.reserveCapacity(Int(min(count, 1 << 24)))
            for _ in 0..<count {
                let length = Int(try reader.fixed32())
                let start = reader.offset
                var record = BinaryReader(bytes, from: start, to: min(start + length, body))
                let (user, context) = try ContextCodec.decode(&record)
                users[user] = context
                reader.offset = start + length
            }
            return (seq, users)
        } catch {
            throw .corrupt(offset: reader.offset, reason: "malformed user record")
        }
    }
}
