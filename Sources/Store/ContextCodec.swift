import Rules

/// A user's whole context, for snapshots.
enum ContextCodec {
    /// Maps are walked in place by index (`entries(of:)`): iterating them as pairs copied each entry out,
    /// retaining and releasing its key and its value's buffers, and snapshots encode every decoded user.
    static func encode(user: String, _ context: UserContext, into writer: inout BinaryWriter) {
        writer.string(user)
        if let launched = context.launchedAt {
            writer.byte(1)
            writer.instant(launched)
        } else {
            writer.byte(0)
        }
        writer.optionalString(context.timeZone)
        entries(of: context.counters, into: &writer) { entry, writer in writer.int(entry.value) }
        entries(of: context.events, into: &writer) { entry, writer in writer.instant(entry.value) }
        entries(of: context.flags, into: &writer) { entry, writer in writer.byte(entry.value ? 1 : 0) }
        entries(of: context.attributes, into: &writer) { entry, writer in writer.json(entry.value) }
        writer.unsigned(UInt64(context.segments.count))
        // Sorted, so one state always gives the same bytes; one segment (the common case) needs no sort.
        if context.segments.count == 1 {
            for segment in context.segments { writer.string(segment) }
        } else {
            for segment in context.segments.sorted() { writer.string(segment) }
        }
        entries(of: context.donations, into: &writer) { entry, writer in encode(entry.value, into: &writer) }
        entries(of: context.triggerFires, into: &writer) { entry, writer in writer.instant(entry.value) }
        // Trailing sections (a record without any is a pre-v2 one): `tag, fields`, ascending by tag, each written
        // only when it has something.
        if !context.expiries.isEmpty {
            writer.byte(1)
            encodeExpiries(context.expiries, into: &writer)
        }
        if !context.display.isEmpty { DisplayCodec.encodeSection(context.display, into: &writer) }
    }

    /// A map's count, then each key and what `value` writes of it.
    @inline(__always)
    private static func entries<Value>(
        of map: CompactMap<Value>, into writer: inout BinaryWriter, _ value: (borrowing CompactMap<Value>.Entry, inout BinaryWriter) -> Void
    ) {
        let entries = map.entries
        writer.unsigned(UInt64(entries.count))
        entries.withUnsafeBufferPointer { buffer in
            for index in buffer.indices {
                writer.string(buffer[index].key)
                value(buffer[index], &writer)
            }
        }
    }

    private static func encode(_ summary: DonationSummary, into writer: inout BinaryWriter) {
        writer.int(summary.count)
        for slot in 0..<2 {
            if let mark = slot == 0 ? summary.first : summary.last {
                writer.byte(1)
                writer.instant(mark.at)
                writer.optionalString(mark.appVersion)
            } else {
                writer.byte(0)
            }
        }
        writer.unsigned(UInt64(summary.recent.count))
        var previous: Int64 = 0
        // Deltas keep ascending histories small. Wrapping arithmetic, here and in `decode`, is exact for any two
        // instants and cannot trap on extreme ones.
        for instant in summary.recent {
            writer.signed(instant.milliseconds &- previous)
            previous = instant.milliseconds
        }
    }

    static func decode(_ reader: inout BinaryReader) throws(BinaryReader.Failure) -> (String, UserContext) {
        var interner = StringInterner()
        return try decode(&reader, interning: &interner)
    }

    /// Keys, event names and versions come from `interner`, shared with the users decoded before (see
    /// `StringInterner`); user ids are each user's own. Maps are sized once from their counts.
    static func decode(
        _ reader: inout BinaryReader, interning interner: inout StringInterner
    ) throws(BinaryReader.Failure) -> (String, UserContext) {
        let user = try reader.string()
        // Each map read whole into its own value, and the context made once from them (`UserContext.init`).
        let launchedAt = try reader.byte() == 1 ? try reader.instant() : nil
        let timeZone = try reader.byte() == 1 ? try reader.key(interning: &interner) : nil
        let counters = try CompactMap(count: try reader.count()) { () throws(BinaryReader.Failure) in
            (try reader.key(interning: &interner), try reader.int())
        }
        let events = try CompactMap(count: try reader.count()) { () throws(BinaryReader.Failure) in
            (try reader.key(interning: &interner), try reader.instant())
        }
        let flags = try CompactMap(count: try reader.count()) { () throws(BinaryReader.Failure) in
            (try reader.key(interning: &interner), try reader.byte() == 1)
        }
        let attributes = try CompactMap(count: try reader.count()) { () throws(BinaryReader.Failure) in
            (try reader.key(interning: &interner), try reader.json(interning: &interner))
        }
        let segments = try SegmentSet(count: try reader.count()) { () throws(BinaryReader.Failure) in
            try reader.key(interning: &interner)
        }
        let donations = try CompactMap(count: try reader.count()) { () throws(BinaryReader.Failure) in
            (try reader.key(interning: &interner), try decodeSummary(&reader, interning: &interner))
        }
        let triggerFires = try CompactMap(count: try reader.count()) { () throws(BinaryReader.Failure) in
            (try reader.key(interning: &interner), try reader.instant())
        }
        var context = UserContext(
            launchedAt: launchedAt, timeZone: timeZone, counters: counters, events: events, flags: flags,
            attributes: attributes, segments: segments, donations: donations, triggerFires: triggerFires)
        var lastTag: UInt8 = 0
        while !reader.isAtEnd {
            let tag = try reader.byte()
            guard tag > lastTag else { throw .malformed }
            lastTag = tag
            switch tag {
            case 1: context.expiries = try decodeExpiries(&reader, of: context)
            case 2: context.display = try DisplayCodec.decodeSection(&reader)
            default: throw .malformed
            }
        }
        return (user, context)
    }

    private static func decodeSummary(
        _ reader: inout BinaryReader, interning interner: inout StringInterner
    ) throws(BinaryReader.Failure) -> DonationSummary {
        func mark() throws(BinaryReader.Failure) -> DonationSummary.Mark? {
            guard try reader.byte() == 1 else { return nil }
            return DonationSummary.Mark(at: try reader.instant(), appVersion: try reader.optionalString(interning: &interner))
        }
        let count = try reader.int()
        let first = try mark()
        let last = try mark()
        var previous: Int64 = 0
        let length = try reader.count()
        var recent: [Instant] = []
        recent.reserveCapacity(length)
        for _ in 0..<length {
            previous = previous &+ (try reader.signed())
            recent.append(Instant(milliseconds: previous))
        }
        return DonationSummary(count: count, first: first, last: last, recent: recent)
    }
}
