import Rules

/// Reads a snapshot pushed to it in pieces of any size: the header, then one user at a time, then the checksum.
///
/// It keeps only the bytes of the user it has not finished (at most one chunk plus the largest single user), so
/// checking or loading a snapshot never holds the whole file: a store of a million users would otherwise need its
/// snapshot's size again in memory, twice over while a file read is copied into an array, at every snapshot.
///
/// The checksum covers every byte before the trailer and is checked when the trailer arrives, so users are handed
/// to `each` before the file is known to be whole: a caller keeps nothing until `finish` returned.
struct SnapshotDecoder {
    typealias ReadFailure = SnapshotFile.ReadFailure

    private enum Phase {
        case header
        case users(next: UInt64)
        case trailer
        case done
    }

    /// The file's size when known: counts and lengths that cannot fit are refused before waiting for the bytes.
    let size: Int?
    private(set) var seq: UInt64 = 0
    private(set) var count: UInt64 = 0
    private var phase = Phase.header
    /// Bytes received and not yet consumed; `pending[0]` is at file offset `consumed`.
    private var pending: [UInt8] = []
    private var consumed = 0
    private var crc: UInt32 = 0
    /// Keys shared across the users decoded (see `StringInterner`).
    private var interner = StringInterner()
    /// The most bytes ever held at once (tests check that it stays near one chunk, not the file).
    private(set) var peakBufferedBytes = 0

    init(size: Int? = nil) {
        self.size = size
    }

    /// True once the header has been read: `seq` and `count` hold the file's values.
    var hasHeader: Bool {
        if case .header = phase { return false }
        return true
    }

    /// Takes the next piece of the file and hands every user it completes to `each`.
    mutating func feed(_ chunk: UnsafeRawBufferPointer, _ each: (ByteKey, UserContext) throws(ReadFailure) -> Void) throws(ReadFailure) {
        pending.append(contentsOf: chunk)
        try drain(each, raw: false, records: { _, _, _, _ throws(ReadFailure) in })
    }

    /// A user's record as it stands in the file, undecoded: the decoder's buffer and the record's range in it
    /// (valid for the call: read in place, copied only to be kept), its offset in the file, and its index.
    typealias RecordSink = (_ buffer: [UInt8], _ range: Range<Int>, _ offset: Int, _ index: UInt64) throws(ReadFailure) -> Void

    /// `feed`, with each user's record handed over undecoded (`SnapshotFile.load` checks and keeps it,
    /// `SnapshotFile.verify` checks it): framing, counts, lengths and the checksum are still checked here, in file
    /// order.
    mutating func feedRecords(_ chunk: UnsafeRawBufferPointer, _ records: RecordSink) throws(ReadFailure) {
        pending.append(contentsOf: chunk)
        try drain({ _, _ throws(ReadFailure) in }, raw: true, records: records)
    }

    /// Takes a whole buffer without copying it when nothing is pending (`SnapshotFile.read`).
    mutating func feed(_ bytes: [UInt8], _ each: (ByteKey, UserContext) throws(ReadFailure) -> Void) throws(ReadFailure) {
        if pending.isEmpty { pending = bytes } else { pending += bytes }
        try drain(each, raw: false, records: { _, _, _, _ throws(ReadFailure) in })
    }

    /// The end of the file: refuses one that stopped before its checksum.
    func finish() throws(ReadFailure) -> (seq: UInt64, count: Int) {
        let end = consumed + pending.count
        switch phase {
        case .header:
            // A wrong magic was refused as soon as it arrived.
            throw .corrupt(offset: 0, reason: "too short for a snapshot (\(end) bytes)")
        case .users(let next):
            throw .corrupt(offset: consumed, reason: "cut short in user \(next) of \(count) (the file ends at byte \(end))")
        case .trailer:
            throw .corrupt(offset: consumed, reason: "cut short before its checksum (the file ends at byte \(end))")
        case .done:
            return (seq, Int(clamping: count))
        }
    }

    private var magicMatches: Bool {
        let length = min(pending.count, SnapshotFile.magic.count)
        return pending[0..<length].elementsEqual(SnapshotFile.magic[0..<length])
    }

    private mutating func drain(
        _ each: (ByteKey, UserContext) throws(ReadFailure) -> Void, raw: Bool, records: RecordSink
    ) throws(ReadFailure) {
        peakBufferedBytes = max(peakBufferedBytes, pending.count)
        var offset = 0
        defer {
            // What is left is less than one user: moving it down is cheap, and the array keeps its capacity.
            if offset > 0 {
                pending.removeFirst(offset)
                consumed += offset
            }
        }
        while true {
            let available = pending.count - offset
            switch phase {
            case .header:
                guard magicMatches else { throw .corrupt(offset: 0, reason: "not a snapshot (bad magic)") }
                guard available >= SnapshotFile.headerSize else { return }
                var reader = BinaryReader(pending, from: offset + SnapshotFile.magic.count, to: offset + SnapshotFile.headerSize)
                do throws(BinaryReader.Failure) {
                    seq = try reader.fixed64()
                    count = try reader.fixed64()
                } catch {
                    throw .corrupt(offset: SnapshotFile.magic.count, reason: "header cut short")
                }
                if let size {
                    let room = max(0, size - SnapshotFile.headerSize - SnapshotFile.trailerSize)
                    guard count <= UInt64(room / SnapshotFile.minimumUserBytes) else {
                        throw .corrupt(offset: 16, reason: "user count \(count) does not fit in \(room) bytes")
                    }
                }
                checksum(offset, SnapshotFile.headerSize)
                offset += SnapshotFile.headerSize
                phase = count == 0 ? .trailer : .users(next: 0)
            case .users(let index):
                guard available >= 4 else { return }
                let start = consumed + offset
                var prefix = BinaryReader(pending, from: offset, to: offset + 4)
                let length = Int((try? prefix.fixed32()) ?? 0)
                if let size, length > size - SnapshotFile.trailerSize - (start + 4) {
                    throw .corrupt(offset: start, reason: "user \(index) of \(count) is malformed (\(BinaryReader.Failure.truncated))")
                }
                guard available >= 4 + length else { return }
                if raw {
                    try records(pending, (offset + 4)..<(offset + 4 + length), start, index)
                    checksum(offset, 4 + length)
                    offset += 4 + length
                    phase = index + 1 == count ? .trailer : .users(next: index + 1)
                    continue
                }
                let context: UserContext
                let user: String
                do throws(BinaryReader.Failure) {
                    var record = BinaryReader(pending, from: offset + 4, to: offset + 4 + length)
                    (user, context) = try ContextCodec.decode(&record, interning: &interner)
                    guard record.isAtEnd else { throw .malformed }
                } catch {
                    throw .corrupt(offset: start, reason: "user \(index) of \(count) is malformed (\(error))")
                }
                do throws(ReadFailure) {
                    try each(ByteKey(user), context)
                } catch {
                    throw .corrupt(offset: start, reason: error.reason)
                }
                checksum(offset, 4 + length)
                offset += 4 + length
                phase = index + 1 == count ? .trailer : .users(next: index + 1)
            case .trailer:
                guard available >= SnapshotFile.trailerSize else { return }
                var reader = BinaryReader(pending, from: offset, to: offset + SnapshotFile.trailerSize)
                let stored = (try? reader.fixed32()) ?? 0
                guard stored == crc else {
                    throw .corrupt(offset: consumed + offset, reason: "checksum mismatch (the file is damaged or cut short)")
                }
                offset += SnapshotFile.trailerSize
                phase = .done
            case .done:
                guard available == 0 else {
                    throw .corrupt(offset: consumed + offset, reason: "\(available) bytes after the checksum")
                }
                return
            }
        }
    }

    private mutating func checksum(_ offset: Int, _ length: Int) {
        crc = pending.withUnsafeBytes { CRC32C.checksum(UnsafeRawBufferPointer(rebasing: $0[offset..<(offset + length)]), initial: crc) }
    }
}
