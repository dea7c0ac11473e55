/// Reads a log record's frame without checking its checksum, so a history read can skip other users' records
/// cheaply and check only the ones it keeps (`LogRecord.scan` checks every one, as recovery must).
enum LogRecordFrame {
    enum Read: Equatable {
        case frame(seq: UInt64, payload: Range<Int>, next: Int)
        case incomplete
        /// A length no record can have.
        case damaged
    }

    static func read(_ bytes: [UInt8], at offset: Int) -> Read {
        guard offset + LogRecord.headerSize <= bytes.count else { return .incomplete }
        var reader = BinaryReader(bytes, from: offset)
        guard let length = try? reader.fixed32(), (try? reader.fixed32()) != nil, let seq = try? reader.fixed64() else { return .incomplete }
        guard Int(length) <= LogRecord.maxPayload else { return .damaged }
        let end = offset + LogRecord.headerSize + Int(length)
        guard end <= bytes.count else { return .incomplete }
        return .frame(seq: seq, payload: (offset + LogRecord.headerSize)..<end, next: end)
    }

    /// Whether the payload's user id (a varint length, then the bytes) is exactly `user`, byte for byte.
    static func payload(_ bytes: [UInt8], _ payload: Range<Int>, startsWithUser user: [UInt8]) -> Bool {
        var reader = BinaryReader(bytes, from: payload.lowerBound, to: payload.upperBound)
        guard let length = try? reader.count(), length == user.count else { return false }
        let start = reader.offset
        for index in 0..<length where bytes[start + index] != user[index] { return false }
        return true
    }

    /// The stored CRC-32C against the seq and payload, as `LogRecord.scan` checks it.
    static func checksumMatches(_ bytes: [UInt8], frameStart offset: Int, end: Int) -> Bool {
        var reader = BinaryReader(bytes, from: offset + 4, to: offset + 8)
        guard let stored = try? reader.fixed32() else { return false }
        let computed = bytes.withUnsafeBytes { raw in CRC32C.checksum(UnsafeRawBufferPointer(rebasing: raw[(offset + 8)..<end])) }
        return computed == stored
    }
}
