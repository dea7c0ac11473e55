import Rules

/// The log record payload: a mutation as `user, now, count, actions`, each action a tag byte and its fields.
enum MutationCodec {
    static func encode(_ mutation: Mutation) -> [UInt8] {
        var writer = BinaryWriter()
        // Room for the usual record (a user, an instant, an action or two) at once: grown from empty, the buffer
        // was reallocated three times per write.
        writer.bytes.reserveCapacity(64 + mutation.user.utf8.count)
        encode(mutation, into: &writer)
        return writer.bytes
    }

    /// The payload appended to what `writer` holds: the log encodes each write this way straight into its batch.
    static func encode(_ mutation: Mutation, into writer: inout BinaryWriter) {
        writer.string(mutation.user)
        writer.instant(mutation.now)
        writer.unsigned(UInt64(mutation.actions.count))
        for action in mutation.actions { encode(action, into: &writer) }
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
        case .increment(let counter, let amount):
            writer.byte(1)
            writer.string(counter)
            writer.int(amount)
        case .decrement(let counter, let amount):
            writer.byte(2)
            writer.string(counter)
            writer.int(amount)
        case .setCounter(let counter, let value):
            writer.byte(3)
            writer.string(counter)
            writer.int(value)
        case .resetCounter(let counter):
            writer.byte(4)
            writer.string(counter)
        case .recordEvent(let event, let at):
            writer.byte(5)
            writer.string(event)
            writer.instant(at)
        case .removeEvent(let event):
            writer.byte(6)
            writer.string(event)
        case .setFlag(let flag, let value):
            writer.byte(7)
            writer.string(flag)
            writer.byte(value ? 1 : 0)
        case .toggleFlag(let flag):
            writer.byte(8)
            writer.string(flag)
        case .setAttribute(let key, let value):
            writer.byte(9)
            writer.string(key)
            writer.json(value)
        case .removeAttribute(let key):
            writer.byte(10)
            writer.string(key)
        case .addSegment(let segment):
            writer.byte(11)
            writer.string(segment)
        case .removeSegment(let segment):
            writer.byte(12)
            writer.string(segment)
        case .setTimeZone(let zone):
            writer.byte(13)
            writer.string(zone)
        case .setLaunchedAt(let at):
            writer.byte(14)
            writer.instant(at)
        case .clear(let scope):
            writer.byte(15)
            writer.byte(UInt8(Action.ClearScope.allCases.firstIndex(of: scope)!))
        case .donate(let event, let at, let version):
            writer.byte(16)
            writer.string(event)
            writer.instant(at)
            writer.optionalString(version)
        case .resetDonations(let event):
            writer.byte(17)
            writer.string(event)
        case .erase: writer.byte(18)
        case .recordTriggerFire(let trigger, let at):
            writer.byte(19)
            writer.string(trigger)
            writer.instant(at)
        case .setExpiringAttribute(let key, let value, let expiresAt):
            writer.byte(20)
            writer.string(key)
            writer.json(value)
            writer.instant(expiresAt)
        case .setExpiringFlag(let flag, let value, let expiresAt):
            writer.byte(21)
            writer.string(flag)
            writer.byte(value ? 1 : 0)
            writer.instant(expiresAt)
        case .addExpiringSegment(let segment, let expiresAt):
            writer.byte(22)
            writer.string(segment)
            writer.instant(expiresAt)
        case .recordDisplay(let flag, let event, let at, let maxCount, let invalidates):
            writer.byte(23)
            DisplayCodec.encode(flag: flag, event: event, at: at, maxCount: maxCount, invalidates: invalidates, into: &writer)
        case .cancelPendingFire(let trigger, let due):
            writer.byte(24)
            writer.string(trigger)
            writer.instant(due)
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
        case 20: return .setExpiringAttribute(key: try reader.string(), value: try reader.json(), expiresAt: try reader.instant())
        case 21: return .setExpiringFlag(flag: try reader.string(), value: try reader.byte() == 1, expiresAt: try reader.instant())
        case 22: return .addExpiringSegment(try reader.string(), expiresAt: try reader.instant())
        case 23: return try DisplayCodec.decodeAction(&reader)
        case 24: return .cancelPendingFire(trigger: try reader.string(), due: try reader.instant())
        default: throw .malformed
        }
    }
}
