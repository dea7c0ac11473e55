import Rules

/// A user's whole context, for snapshots.
enum ContextCodec {
    static func encode(user: String, _ context: UserContext, into writer: inout BinaryWriter) {
        writer.string(user)
        if let launched = context.launchedAt {
            writer.byte(1)
            writer.instant(launched)
        } else {
            writer.byte(0)
        }
        writer.optionalString(context.timeZone)
        writer.unsigned(UInt64(context.counters.count))
        for (key, value) in context.counters {
            writer.string(key)
            writer.int(value)
        }
        writer.unsigned(UInt64(context.events.count))
        for (key, value) in context.events {
            writer.string(key)
            writer.instant(value)
        }
        writer.unsigned(UInt64(context.flags.count))
        for (key, value) in context.flags {
            writer.string(key)
            writer.byte(value ? 1 : 0)
        }
        writer.unsigned(UInt64(context.attributes.count))
        for (key, value) in context.attributes {
            writer.string(key)
            writer.json(value)
        }
        writer.unsigned(UInt64(context.segments.count))
        for segment in context.segments.sorted() { writer.string(segment) }
        writer.unsigned(UInt64(context.donations.count))
        for (event, summary) in context.donations {
            writer.string(event)
            writer.int(summary.count)
            for mark in [summary.first, summary.last] {
                if let mark {
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
        writer.unsigned(UInt64(context.triggerFires.count))
        for (key, value) in context.triggerFires {
            writer.string(key)
            writer.instant(value)
        }
        // Trailing sections (a record without any is a pre-v2 one): `tag, fields`, ascending by tag, each written
        // only when it has something.
        if !context.expiries.isEmpty {
            writer.byte(1)
            encodeExpiries(context.expiries, into: &writer)
        }
        if !context.display.isEmpty { DisplayCodec.encodeSection(context.display, into: &writer) }
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
