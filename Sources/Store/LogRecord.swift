/// The on-disk record: `[length u32][crc32c u32][seq u64][payload]`, little-endian. The CRC covers the seq and
/// the payload, so a flipped bit anywhere but the length is caught by the CRC, and a flipped length is caught by
/// the CRC of the bytes it then claims.
enum LogRecord {
    static let headerSize = 16
    /// Anything longer is treated as damage, not as a record to read.
    static let maxPayload = 64 << 20

    static func encode(seq: UInt64, payload: [UInt8], into out: inout [UInt8]) {
        encode(seq: seq, into: &out) { $0.bytes.append(contentsOf: payload) }
    }

    /// The same record with its payload written by `payload` straight after the header, in `out`: no array of its
    /// own to encode into and copy from, once per write. The header is filled in once the payload's length is known.
    static func encode(seq: UInt64, into out: inout [UInt8], payload: (inout BinaryWriter) -> Void) {
        let start = out.count
        var writer = BinaryWriter()
        swap(&writer.bytes, &out)
        // Room for the header, filled in below: staged with the payload, so the usual record reaches `out` in one
        // copy (appended on its own, the header was a copy of its own, 88 instructions a record).
        writer.fixed64(0)
        writer.fixed64(0)
        payload(&writer)
        swap(&writer.bytes, &out)
        let end = out.count
        out.withUnsafeMutableBytes { raw in
            raw.storeBytes(of: UInt32(end - start - headerSize).littleEndian, toByteOffset: start, as: UInt32.self)
            raw.storeBytes(of: seq.littleEndian, toByteOffset: start + 8, as: UInt64.self)
            let crc = CRC32C.checksum(UnsafeRawBufferPointer(rebasing: raw[(start + 8)..<end]))
            raw.storeBytes(of: crc.littleEndian, toByteOffset: start + 4, as: UInt32.self)
        }
    }

    enum Scan: Equatable {
        case record(seq: UInt64, payload: Range<Int>, next: Int)
        /// The bytes from here to the end cannot hold a whole record.
        case incomplete
        /// A complete-looking record whose CRC does not match, or an impossible length.
        case damaged
    }

    static func scan(_ bytes: [UInt8], at offset: Int) -> Scan {
        guard offset + headerSize <= bytes.count else { return .incomplete }
        var reader = BinaryReader(bytes, from: offset)
        guard let length = try? reader.fixed32(), let crc = try? reader.fixed32(), let seq = try? reader.fixed64() else { return .incomplete }
        guard Int(length) <= maxPayload else { return .damaged }
        let end = offset + headerSize + Int(length)
        guard end <= bytes.count else { return .incomplete }
        let computed = bytes.withUnsafeBytes { raw in
            CRC32C.checksum(UnsafeRawBufferPointer(rebasing: raw[(offset + 8)..<end]))
        }
        guard computed == crc else { return .damaged }
        return .record(seq: seq, payload: (offset + headerSize)..<end, next: end)
    }

    /// Whether everything from `offset` to the end is zero bytes: space the log reserved ahead of its records
    /// (`FileSystem.reserve`), not a record, since a record's seq is never 0 and its header never all zero. A
    /// segment is its records, then perhaps such zeros; zeros followed by anything else are not padding.
    static func isPadding(_ bytes: [UInt8], from offset: Int) -> Bool {
        guard offset < bytes.count else { return false }
        return bytes.withUnsafeBytes { raw in isPadding(raw, from: offset) }
    }

    static func isPadding(_ raw: UnsafeRawBufferPointer, from offset: Int) -> Bool {
        var index = offset
        // A word at a time: the zeros reserved at once run to a megabyte.
        while raw.count - index >= 8 {
            if raw.loadUnaligned(fromByteOffset: index, as: UInt64.self) != 0 { return false }
            index += 8
        }
        while index < raw.count {
            if raw[index] != 0 { return false }
            index += 1
        }
        return true
    }

    /// Sectors a disk writes whole or not at all, for `looksUnwritten`.
    static let sectorSize = 512

    /// Whether the bad record at `offset` shows a write that never reached the disk: from its start, or from a
    /// sector boundary inside the bytes it claims, zeros run to that sector's end, as the space reserved ahead held
    /// before the write. Records go over reserved zeros with no new file size to order them, so a power cut before
    /// a batch's data sync may keep later sectors of the batch and lose this one: the valid records after it were
    /// never acknowledged under `always` (their sync had not returned), and are a torn tail like the rest (found
    /// in review). A record as written starts with its non-zero length, so zeros there are no record.
    static func looksUnwritten(_ bytes: [UInt8], at offset: Int) -> Bool {
        guard offset < bytes.count else { return false }
        return bytes.withUnsafeBytes { raw in
            var end = min(raw.count, offset + headerSize)
            if offset + 4 <= raw.count {
                let length = Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
                if length <= maxPayload { end = min(raw.count, offset + headerSize + length) }
            }
            var start = offset
            while start < end {
                let sectorEnd = min(raw.count, (start / sectorSize + 1) * sectorSize)
                if sectorEnd - start >= 4, isPadding(UnsafeRawBufferPointer(rebasing: raw[..<sectorEnd]), from: start) { return true }
                start = sectorEnd
            }
            return false
        }
    }

    /// Whether any valid record starts after `offset`: if so, a bad record there is corruption, not a torn tail.
    static func validRecordExists(in bytes: [UInt8], after offset: Int, minimumSeq: UInt64) -> Bool {
        // A record holds a non-zero byte (its seq) at or after its start: none starts in the zeros at the end,
        // which may be a megabyte reserved ahead, not to be tried byte by byte.
        var lastNonZero = bytes.count - 1
        while lastNonZero > offset, bytes[lastNonZero] == 0 { lastNonZero -= 1 }
        var candidate = offset + 1
        while candidate + headerSize <= bytes.count, candidate <= lastNonZero {
            if case .record(let seq, _, _) = scan(bytes, at: candidate), seq >= minimumSeq { return true }
            candidate += 1
        }
        return false
    }
}
