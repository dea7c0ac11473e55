#if canImport(Glibc)
import Glibc
#endif

/// Reads a log record's frame without checking its checksum, so a history read can skip other users' records
/// cheaply and check only the ones it keeps (`LogRecord.scan` checks every one, as recovery must). Works on raw
/// bytes: it runs once per record in the retained log.
enum LogRecordFrame {
    enum Read: Equatable {
        case frame(seq: UInt64, payload: Range<Int>, next: Int)
        case incomplete
        /// A length no record can have.
        case damaged
        /// A header of zeros: where the records end and the zeros reserved ahead of them begin (no record's seq
        /// is 0). Whether the rest is zeros too is the caller's to check (`LogRecord.isPadding`).
        case padding
    }

    static func read(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> Read {
        guard offset + LogRecord.headerSize <= bytes.count else { return .incomplete }
        if bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self) == 0,
            bytes.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self) == 0
        {
            return .padding
        }
        let length = Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
        guard length <= LogRecord.maxPayload else { return .damaged }
        let seq = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self))
        let end = offset + LogRecord.headerSize + length
        guard end <= bytes.count else { return .incomplete }
        return .frame(seq: seq, payload: (offset + LogRecord.headerSize)..<end, next: end)
    }

    /// Whether the payload's user id (a varint length, then the bytes) is exactly `user`, byte for byte.
    static func payload(_ bytes: UnsafeRawBufferPointer, _ payload: Range<Int>, startsWithUser user: [UInt8]) -> Bool {
        var position = payload.lowerBound
        var length: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard position < payload.upperBound, shift < 64 else { return false }
            let byte = bytes[position]
            position += 1
            length |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { break }
            shift += 7
        }
        guard length == UInt64(user.count), payload.upperBound - position >= user.count else { return false }
        return user.withUnsafeBytes { wanted in
            wanted.count == 0 || memcmp(bytes.baseAddress! + position, wanted.baseAddress!, wanted.count) == 0
        }
    }

    /// The stored CRC-32C against the seq and payload, as `LogRecord.scan` checks it.
    static func checksumMatches(_ bytes: UnsafeRawBufferPointer, frameStart offset: Int, end: Int) -> Bool {
        let stored = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self))
        return CRC32C.checksum(UnsafeRawBufferPointer(rebasing: bytes[(offset + 8)..<end])) == stored
    }
}
