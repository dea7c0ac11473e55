import Rules

/// What the webhook outbox file holds, one record per change: a delivery enqueued, or one settled (delivered or
/// given up). Framed as `[length u32][crc32 u32][payload]`, little-endian, so a torn tail or a flipped bit is found.
public enum OutboxRecord: Sendable, Equatable {
    /// How a delivery left the outbox.
    public enum Settlement: UInt8, Sendable, Equatable {
        case delivered = 1
        /// Given up after 24 hours of failures (dead-lettered: logged and listed, never retried).
        case deadLettered = 2
        /// Its webhook is no longer configured.
        case orphaned = 3
    }

    case enqueued(WebhookDelivery)
    case settled(id: UInt64, Settlement)

    /// Why bytes are not a record.
    public enum DecodeError: Error, Equatable, Sendable {
        /// The bytes end inside a record (a write cut short by a crash): only ever at the tail.
        case truncated(offset: Int)
        case checksumMismatch(offset: Int)
        case malformed(offset: Int)
    }

    /// Largest payload accepted when decoding: far above any event body, so a corrupt length cannot make a reader
    /// allocate without bound.
    static let maxPayloadBytes = 16 * 1024 * 1024

    public func encoded() -> [UInt8] {
        var payload: [UInt8] = []
        switch self {
        case .enqueued(let delivery):
            payload.append(1)
            Self.put(delivery.id, into: &payload)
            Self.put(UInt64(bitPattern: delivery.createdAt.milliseconds), into: &payload)
            for text in [delivery.webhook, delivery.user, delivery.eventID, delivery.eventType] { Self.put(Array(text.utf8), into: &payload) }
            Self.put(delivery.body, into: &payload)
        case .settled(let id, let settlement):
            payload.append(2)
            Self.put(id, into: &payload)
            payload.append(settlement.rawValue)
        }
        var record: [UInt8] = []
        record.reserveCapacity(payload.count + 8)
        Self.put32(UInt32(payload.count), into: &record)
        Self.put32(CRC32.checksum(payload), into: &record)
        return record + payload
    }

    /// Every record in `bytes`, in order, and where the first bad one starts (nil when all are good). Never traps on
    /// any input: lengths and counts are checked before they are used.
    public static func decodeAll(_ bytes: [UInt8]) -> (records: [OutboxRecord], failure: DecodeError?) {
        var records: [OutboxRecord] = []
        var offset = 0
        while offset < bytes.count {
            guard bytes.count - offset >= 8 else { return (records, .truncated(offset: offset)) }
            let length = Int(read32(bytes, offset))
            let checksum = read32(bytes, offset + 4)
            guard length <= maxPayloadBytes else { return (records, .malformed(offset: offset)) }
            guard bytes.count - offset - 8 >= length else { return (records, .truncated(offset: offset)) }
            let payload = bytes[(offset + 8)..<(offset + 8 + length)]
            guard CRC32.checksum(payload) == checksum else { return (records, .checksumMismatch(offset: offset)) }
            guard let record = decodePayload(payload) else { return (records, .malformed(offset: offset)) }
            records.append(record)
            offset += 8 + length
        }
        return (records, nil)
    }

    private static func decodePayload(_ payload: ArraySlice<UInt8>) -> OutboxRecord? {
        var reader = Reader(bytes: payload)
        switch reader.byte() {
        case 1:
            guard let id = reader.u64(), let created = reader.u64(), let webhook = reader.text(), let user = reader.text(),
                let eventID = reader.text(), let eventType = reader.text(), let body = reader.blob(), reader.atEnd
            else { return nil }
            return .enqueued(
                WebhookDelivery(
                    id: id, webhook: webhook, user: user, eventID: eventID, eventType: eventType, body: body,
                    createdAt: Instant(milliseconds: Int64(bitPattern: created))))
        case 2:
            guard let id = reader.u64(), let raw = reader.byte(), let settlement = Settlement(rawValue: raw), reader.atEnd else { return nil }
            return .settled(id: id, settlement)
        default:
            return nil
        }
    }

    private struct Reader {
        let bytes: ArraySlice<UInt8>
        var index: Int

        init(bytes: ArraySlice<UInt8>) {
            self.bytes = bytes
            index = bytes.startIndex
        }

        var atEnd: Bool { index == bytes.endIndex }

        mutating func byte() -> UInt8? {
            guard index < bytes.endIndex else { return nil }
            defer { index += 1 }
            return bytes[index]
        }

        mutating func u64() -> UInt64? {
            guard bytes.endIndex - index >= 8 else { return nil }
            var value: UInt64 = 0
            for shift in 0..<8 { value |= UInt64(bytes[index + shift]) << UInt64(shift * 8) }
            index += 8
            return value
        }

        mutating func blob() -> [UInt8]? {
            guard let count = u64(), count <= UInt64(bytes.endIndex - index) else { return nil }
            defer { index += Int(count) }
            return Array(bytes[index..<(index + Int(count))])
        }

        mutating func text() -> String? {
            guard let raw = blob() else { return nil }
            let text = String(decoding: raw, as: UTF8.self)
            // Only valid UTF-8 round-trips; anything else is damage, not a name.
            return Array(text.utf8) == raw ? text : nil
        }
    }

    private static func put(_ value: UInt64, into out: inout [UInt8]) {
        for shift in 0..<8 { out.append(UInt8(truncatingIfNeeded: value >> UInt64(shift * 8))) }
    }

    private static func put(_ bytes: [UInt8], into out: inout [UInt8]) {
        put(UInt64(bytes.count), into: &out)
        out += bytes
    }

    private static func put32(_ value: UInt32, into out: inout [UInt8]) {
        for shift in 0..<4 { out.append(UInt8(truncatingIfNeeded: value >> UInt32(shift * 8))) }
    }

    private static func read32(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        var value: UInt32 = 0
        for shift in 0..<4 { value |= UInt32(bytes[offset + shift]) << UInt32(shift * 8) }
        return value
    }
}
