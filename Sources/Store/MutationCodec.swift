import Rules

/// The log record payload: a mutation as `user, now, count, actions`, each action a tag byte and its fields.
enum MutationCodec {
    static func encode(_ mutation: Mutation) -> [UInt8] {
        var writer = BinaryWriter()
        writer.string(mutation.user)
        writer.instant(mutation.now)
        writer.unsigned(UInt64(mutation.actions.count))
        for action in mutation.actions { encode(action, into: &writer) }
        return writer.bytes
    }

    static func decode(_ bytes: [UInt8], from start: Int = 0, to end: Int? = nil) throws(BinaryReader.Failure) -> Mutation {
        var reader = BinaryReader(bytes, from: start, to: end)
        let user = try reader.string()
        let now = try reader.instant()
        let count = try reader.count()
        var actions: [Action] = []
        actions.reserveCapacity(count)
        for _ in 0..<count { actions.append(try decodeAction(&reader)) }
        guard reader.isAtEnd else { throw .malformed }
        return Mutation(user: user, now: now, actions: actions)
    }

    private static func encode(_ action: Action, into writer: inout BinaryWriter) {
        switch action {
        case .increment(let counter, let amount): writer.byte(1); writer.string(counter); writer.int(amount)
        case .decrement(let counter, let amount): writer.byte(2); writer.string(counter); writer.int(amount)
        case .setCounter(let counter, let value): writer.byte(3); writer.string(counter); writer.int(value)
        case .resetCounter(let counter): writer.byte(4); writer.string(counter)
        case .recordEvent(let event, let at): writer.byte(5); writer.string(event); writer.instant(at)
        case .removeEvent(let event): writer.byte(6); writer.string(event)
        case .setFlag(let flag, let value): writer.byte(7); writer.string(flag); writer.byte(value ? 1 : 0)
        case .toggleFlag(let flag): writer.byte(8); writer.string(flag)
        case .setAttribute(let key, let value): writer.byte(9); writer.string(key); writer.json(value)
        case .removeAttribute(let key): writer.byte(10); writer.string(key)
        case .addSegment(let segment): writer.byte(11); writer.string(segment)
        case .removeSegment(let segment): writer.byte(12); writer.string(segment)
        case .setTimeZone(let zone): writer.byte(13); writer.string(zone)
        case .setLaunchedAt(let at): writer.byte(14); writer.instant(at)
        case .clear(let scope): writer.byte(15); writer.byte(UInt8(Action.ClearScope.allCases.firstIndex(of: scope)!))
        case .donate(let event, let at, let version): writer.byte(16); writer.string(event); writer.instant(at); writer.optionalString(version)
        case .resetDonations(let event): writer.byte(17); writer.string(event)
        case .erase: writer.byte(18)
        case .recordTriggerFire(let trigger, let at): writer.byte(19); writer.string(trigger); writer.instant(at)
        }
    }

    private static func decodeAction(_ reader: inout BinaryReader) throws(BinaryReader.Failure) -> Action {
        switch try reader.byte() {
        case 1: return .increment(counter: try reader.string(), by: try reader.int())
        case 2: return .decrement(counter: try reader.string(), by: try reader.int())
        case 3: return .setCounter(counter: try reader.string(), value: try reader.int())
        case 4: return .resetCounter(counter: try reader.string())
        case 5: return .recordEvent(event: try reader.string(), at: try reader.instant())
        case 6: return .removeEvent(event: try reader.string())
        case 7: return .setFlag(flag: try reader.string(), value: try reader.byte() == 1)
        case 8: return .toggleFlag(flag: try reader.string())
        case 9: return .setAttribute(key: try reader.string(), value: try reader.json())
        case 10: return .removeAttribute(key: try reader.string())
        case 11: return .addSegment(try reader.string())
        case 12: return .removeSegment(try reader.string())
        case 13: return .setTimeZone(try reader.string())
        case 14: return .setLaunchedAt(try reader.instant())
        case 15:
            let index = Int(try reader.byte())
            guard index < Action.ClearScope.allCases.count else { throw .malformed }
            return .clear(Action.ClearScope.allCases[index])
        case 16: return .donate(event: try reader.string(), at: try reader.instant(), appVersion: try reader.optionalString())
        case 17: return .resetDonations(event: try reader.string())
        case 18: return .erase
        case 19: return .recordTriggerFire(trigger: try reader.string(), at: try reader.instant())
        default: throw .malformed
        }
    }
}

/// A user's whole context, for snapshots.
enum ContextCodec {
    static func encode(user: String, _ context: UserContext, into writer: inout BinaryWriter) {
        writer.string(user)
        if let launched = context.launchedAt { writer.byte(1); writer.instant(launched) } else { writer.byte(0) }
        writer.optionalString(context.timeZone)
        writer.unsigned(UInt64(context.counters.count))
        for (key, value) in context.counters { writer.string(key); writer.int(value) }
        writer.unsigned(UInt64(context.events.count))
        for (key, value) in context.events { writer.string(key); writer.instant(value) }
        writer.unsigned(UInt64(context.flags.count))
        for (key, value) in context.flags { writer.string(key); writer.byte(value ? 1 : 0) }
        writer.unsigned(UInt64(context.attributes.count))
        for (key, value) in context.attributes { writer.string(key); writer.json(value) }
        writer.unsigned(UInt64(context.segments.count))
        for segment in context.segments.sorted() { writer.string(segment) }
        writer.unsigned(UInt64(context.donations.count))
        for (event, summary) in context.donations {
            writer.string(event)
            writer.int(summary.count)
            for mark in [summary.first, summary.last] {
                if let mark { writer.byte(1); writer.instant(mark.at); writer.optionalString(mark.appVersion) } else { writer.byte(0) }
            }
            writer.unsigned(UInt64(summary.recent.count))
            var previous: Int64 = 0
            // Deltas keep ascending histories small. Wrapping arithmetic, here and in `decode`, is exact for any two
            // instants and cannot trap on extreme ones.
            for instant in summary.recent { writer.signed(instant.milliseconds &- previous); previous = instant.milliseconds }
        }
        writer.unsigned(UInt64(context.triggerFires.count))
        for (key, value) in context.triggerFires { writer.string(key); writer.instant(value) }
    }

    static func decode(_ reader: inout BinaryReader) throws(BinaryReader.Failure) -> (String, UserContext) {
        let user = try reader.string()
        var context = UserContext()
        if try reader.byte() == 1 { context.launchedAt = try reader.instant() }
        context.timeZone = try reader.optionalString()
        for _ in 0..<(try reader.count()) { context.counters[try reader.string()] = try reader.int() }
        for _ in 0..<(try reader.count()) { context.events[try reader.string()] = try reader.instant() }
        for _ in 0..<(try reader.count()) { context.flags[try reader.string()] = try reader.byte() == 1 }
        for _ in 0..<(try reader.count()) { context.attributes[try reader.string()] = try reader.json() }
        for _ in 0..<(try reader.count()) { context.segments.insert(try reader.string()) }
        for _ in 0..<(try reader.count()) {
            let event = try reader.string()
            var summary = DonationSummary(count: try reader.int())
            for slot in 0..<2 {
                guard try reader.byte() == 1 else { continue }
                let mark = DonationSummary.Mark(at: try reader.instant(), appVersion: try reader.optionalString())
                if slot == 0 { summary.first = mark } else { summary.last = mark }
            }
            var previous: Int64 = 0
            for _ in 0..<(try reader.count()) {
                previous = previous &+ (try reader.signed())
                summary.recent.append(Instant(milliseconds: previous))
            }
            context.donations[event] = summary
        }
        for _ in 0..<(try reader.count()) { context.triggerFires[try reader.string()] = try reader.instant() }
        return (user, context)
    }
}
