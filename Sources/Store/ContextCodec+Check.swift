import Rules

extension ContextCodec {
    /// Walks a user's record exactly as `decode` reads it, building nothing, and returns the user's id and whether
    /// the record has trailing sections (expiries, display accounting). A record this accepts, `decode` accepts:
    /// startup keeps snapshot users as their bytes (`EncodedContext`) and decodes each on first touch, so every
    /// failure `decode` could meet must be met here, while the snapshot can still be refused whole.
    ///
    /// The common sections can fail only as the reader does (a length or count past the end, a varint too long, an
    /// attribute that is not JSON); the trailing sections check what the user holds and are rare, so a record with
    /// any is decoded here in full instead of walked, which keeps the two paths one.
    ///
    /// The walk runs over the record's bytes in place (`RecordWalk`): every user of a snapshot passes here at
    /// startup and again when each snapshot is verified, and through the reader's array it cost some seven
    /// instructions a byte.
    static func check(_ reader: inout BinaryReader) throws(BinaryReader.Failure) -> (user: String, trailing: Bool) {
        let start = reader.offset
        let (end, offset) = (reader.end, reader.offset)
        let walked = try reader.bytes.withUnsafeBufferPointer { buffer throws(BinaryReader.Failure) in
            var walk = RecordWalk(buffer, offset: offset, end: end)
            let user = try walk.common()
            return (user: user, offset: walk.offset)
        }
        reader.offset = walked.offset
        guard !reader.isAtEnd else { return (walked.user, false) }
        reader.offset = start
        _ = try decode(&reader)
        return (walked.user, true)
    }
}

/// `BinaryReader`'s reads and skips over a buffer in place, failing where it fails and with the same failure:
/// for `ContextCodec.check` alone.
private struct RecordWalk {
    let buffer: UnsafeBufferPointer<UInt8>
    var offset: Int
    let end: Int

    init(_ buffer: UnsafeBufferPointer<UInt8>, offset: Int, end: Int) {
        self.buffer = buffer
        self.end = max(0, min(end, buffer.count))
        self.offset = max(0, min(offset, self.end))
    }

    /// The sections every record has, in `ContextCodec.encode`'s order; returns the user's id.
    mutating func common() throws(BinaryReader.Failure) -> String {
        let length = try count()
        let user = String(decoding: UnsafeBufferPointer(rebasing: buffer[offset..<(offset + length)]), as: UTF8.self)
        offset += length
        if try byte() == 1 { try skipVarint() }
        try skipOptionalString()
        for _ in 0..<(try count()) {
            try skipString()
            try skipVarint()
        }
        for _ in 0..<(try count()) {
            try skipString()
            try skipVarint()
        }
        for _ in 0..<(try count()) {
            try skipString()
            _ = try byte()
        }
        for _ in 0..<(try count()) {
            try skipString()
            try skipJSON()
        }
        for _ in 0..<(try count()) { try skipString() }
        for _ in 0..<(try count()) {
            try skipString()
            try skipVarint()
            for _ in 0..<2 {
                guard try byte() == 1 else { continue }
                try skipVarint()
                try skipOptionalString()
            }
            for _ in 0..<(try count()) { try skipVarint() }
        }
        for _ in 0..<(try count()) {
            try skipString()
            try skipVarint()
        }
        return user
    }

    @inline(__always)
    mutating func byte() throws(BinaryReader.Failure) -> UInt8 {
        guard offset < end else { throw .truncated }
        defer { offset += 1 }
        return buffer[offset]
    }

    /// As `BinaryReader.unsigned`.
    @inline(__always)
    mutating func unsigned() throws(BinaryReader.Failure) -> UInt64 {
        try BinaryReader.varint(in: buffer, at: &offset, end: end)
    }

    /// As `BinaryReader.count`: never more than the bytes left.
    @inline(__always)
    mutating func count() throws(BinaryReader.Failure) -> Int {
        let value = try unsigned()
        guard value <= UInt64(end - offset) else { throw .truncated }
        return Int(value)
    }

    /// As `BinaryReader.skipVarint`.
    @inline(__always)
    mutating func skipVarint() throws(BinaryReader.Failure) {
        var read = 0
        while true {
            guard offset < end else { throw .truncated }
            let next = buffer[offset]
            offset += 1
            guard read < 10 else { throw .malformed }
            read += 1
            if next & 0x80 == 0 { return }
        }
    }

    @inline(__always)
    mutating func skipString() throws(BinaryReader.Failure) {
        offset += try count()
    }

    mutating func skipOptionalString() throws(BinaryReader.Failure) {
        if try byte() == 1 { try skipString() }
    }

    /// As `BinaryReader.skipJSON`: a plain string needs no parse, anything else is parsed and dropped.
    mutating func skipJSON() throws(BinaryReader.Failure) {
        let length = try count()
        let value = UnsafeBufferPointer(rebasing: buffer[offset..<(offset + length)])
        offset += length
        guard !BinaryReader.isPlainString(value) else { return }
        do {
            _ = try JSONParser(maxDepth: 64, maxBytes: Int.max).parse(Array(value))
        } catch {
            throw .malformed
        }
    }
}
