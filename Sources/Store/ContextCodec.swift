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
        var context = UserContext()
        if try reader.byte() == 1 { context.launchedAt = try reader.instant() }
        context.timeZone = try reader.byte() == 1 ? try reader.key(interning: &interner) : nil
        var count = try reader.count()
        context.counters.reserveCapacity(count)
        for _ in 0..<count { context.counters[try reader.key(interning: &interner)] = try reader.int() }
        count = try reader.count()
        context.events.reserveCapacity(count)
        for _ in 0..<count { context.events[try reader.key(interning: &interner)] = try reader.instant() }
        count = try reader.count()
        context.flags.reserveCapacity(count)
        for _ in 0..<count { context.flags[try reader.key(interning: &interner)] = try reader.byte() == 1 }
        count = try reader.count()
        context.attributes.reserveCapacity(count)
        for _ in 0..<count { context.attributes[try reader.key(interning: &interner)] = try reader.json(interning: &interner) }
        for _ in 0..<(try reader.count()) { context.segments.insert(try reader.key(interning: &interner)) }
        count = try reader.count()
        context.donations.reserveCapacity(count)
        for _ in 0..<count {
            let event = try reader.key(interning: &interner)
            var summary = DonationSummary(count: try reader.int())
            for slot in 0..<2 {
                guard try reader.byte() == 1 else { continue }
                let mark = DonationSummary.Mark(at: try reader.instant(), appVersion: try reader.optionalString(interning: &interner))
                if slot == 0 { summary.first = mark } else { summary.last = mark }
            }
            var previous: Int64 = 0
            let recent = try reader.count()
            summary.recent.reserveCapacity(recent)
            for _ in 0..<recent {
                previous = previous &+ (try reader.signed())
                summary.recent.append(Instant(milliseconds: previous))
            }
            context.donations[event] = summary
        }
        for _ in 0..<(try reader.count()) { context.triggerFires[try reader.key(interning: &interner)] = try reader.instant() }
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
}
