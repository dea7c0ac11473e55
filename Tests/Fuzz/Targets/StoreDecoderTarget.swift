// libFuzzer target: the log-record and snapshot decoders. Random bytes are refused with an error, never a trap and
// never an allocation sized by a length field that the bytes cannot back; valid encodings round-trip.
//
// Input: byte 0 picks the decoder; the rest is its input. Modes that sit behind a CRC get the CRC fixed up, so the
// fuzzer reaches the decoding behind it (a CRC-valid but malformed file is what a bug or a crafted file gives).

func snapshotBytes(seq: UInt64, count: UInt64, body: [UInt8]) -> [UInt8] {
    var writer = BinaryWriter()
    writer.bytes = SnapshotFile.magic
    writer.fixed64(seq)
    writer.fixed64(count)
    writer.bytes += body
    writer.fixed32(CRC32C.checksum(writer.bytes))
    return writer.bytes
}

func roundTripMutation(_ mutation: Mutation) {
    do {
        let again = try MutationCodec.decode(MutationCodec.encode(mutation))
        guard again == mutation else { fatalError("mutation round trip changed it") }
    } catch {
        fatalError("an encoded mutation does not decode: \(error)")
    }
}

func roundTripContext(_ user: String, _ context: UserContext) {
    var writer = BinaryWriter()
    ContextCodec.encode(user: user, context, into: &writer)
    var reader = BinaryReader(writer.bytes)
    guard let (again, decoded) = try? ContextCodec.decode(&reader), again == user, decoded == context, reader.isAtEnd else {
        fatalError("context round trip failed")
    }
}

/// Walks a segment as recovery does: records in order; at damage, whether a valid record follows.
func scanSegment(_ bytes: [UInt8]) {
    var offset = 0
    var records = 0
    while offset < bytes.count {
        switch LogRecord.scan(bytes, at: offset) {
        case .record(_, let payload, let next):
            guard next > offset, payload.upperBound == next, next <= bytes.count else { fatalError("scan went nowhere") }
            if let mutation = try? MutationCodec.decode(bytes, from: payload.lowerBound, to: payload.upperBound) {
                roundTripMutation(mutation)
            }
            offset = next
            records += 1
        case .damaged:
            _ = LogRecord.validRecordExists(in: bytes, after: offset, minimumSeq: 0)
            return
        case .incomplete:
            return
        }
    }
}

func fuzzStoreDecoders(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let mode = input.byte() % 8
    switch mode {
    case 0:
        // A record payload as it comes off the disk.
        if let mutation = try? MutationCodec.decode(input.remaining) { roundTripMutation(mutation) }
    case 1:
        // One snapshot user record; `check` (startup keeps records undecoded once it passed) must accept exactly
        // what `decode` accepts, or a user decoded on first touch could fail after the snapshot was taken as good.
        let bytes = input.remaining
        var reader = BinaryReader(bytes)
        var checking = BinaryReader(bytes)
        let decoded = try? ContextCodec.decode(&reader)
        let checked = try? ContextCodec.check(&checking)
        switch (checked, decoded) {
        case (nil, nil): break
        case (let checked?, let decoded?) where checked.user.bytesEqual(decoded.0) && checking.offset == reader.offset: break
        default: fatalError("check and decode disagree on a record")
        }
        if let (user, context) = decoded { roundTripContext(user, context) }
    case 2:
        // A whole snapshot file as found, usually refused at the CRC.
        _ = try? SnapshotFile.read(input.remaining)
    case 3:
        // A CRC-valid snapshot whose user count and records come from the input.
        // A huge claimed count once made the reader reserve gigabytes up front
        // (Crashes/store-decoders/snapshot-user-count-reserves-5GB).
        let count = input.byte() % 2 == 0 ? UInt64(input.byte()) : input.uint64()
        let seq = input.uint64()
        if let (readSeq, users) = try? SnapshotFile.read(snapshotBytes(seq: seq, count: count, body: input.remaining)) {
            guard readSeq == seq, UInt64(users.count) <= count else { fatalError("snapshot read invented users") }
        }
    case 4:
        // A segment as found.
        scanSegment(input.remaining)
    case 5:
        // A segment of CRC-valid records around payloads from the input, perhaps with one byte flipped.
        var segment: [UInt8] = []
        var seq = input.uint64() % 1000
        while !input.isExhausted {
            LogRecord.encode(seq: seq, payload: input.take(input.int(0...200)), into: &segment)
            seq += 1
        }
        if !segment.isEmpty, input.bytes.first.map({ $0 & 0x80 != 0 }) == true {
            segment[Int(seq) % segment.count] ^= 0x01
        }
        scanSegment(segment)
    default:
        // Valid encodings built from the input round-trip: a batch, the state it builds, a snapshot of it.
        var mutation = input.mutation(maxActions: 8)
        mutation.actions.removeAll { if case .erase = $0 { return true } else { return false } }
        roundTripMutation(mutation)
        guard let built = try? Reducer.apply(mutation, to: nil).state else { return 0 }
        roundTripContext(mutation.user, built)
        var record = BinaryWriter()
        ContextCodec.encode(user: mutation.user, built, into: &record)
        var body = BinaryWriter()
        body.fixed32(UInt32(record.bytes.count))
        body.bytes += record.bytes
        guard let (_, users) = try? SnapshotFile.read(snapshotBytes(seq: 7, count: 1, body: body.bytes)),
            users.count == 1, users[ByteKey(mutation.user)] == built
        else {
            fatalError("a valid snapshot does not read back")
        }
    }
    return 0
}
