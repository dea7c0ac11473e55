import Rules

extension ContextCodec {
    /// Section 1: `count`, then each expiry as `kind byte, key, instant`.
    static func encodeExpiries(_ expiries: ValueExpiries, into writer: inout BinaryWriter) {
        writer.unsigned(UInt64(expiries.count))
        for entry in expiries.sorted {
            writer.byte(entry.kind.rawValue)
            writer.string(entry.key)
            writer.instant(entry.at)
        }
    }

    /// Refuses what the store never writes: an unknown kind, an expiry twice, or one naming a value the user does
    /// not hold.
    static func decodeExpiries(_ reader: inout BinaryReader, of context: UserContext) throws(BinaryReader.Failure) -> ValueExpiries {
        var expiries = ValueExpiries()
        for _ in 0..<(try reader.count()) {
            guard let kind = ValueExpiries.Kind(rawValue: try reader.byte()) else { throw .malformed }
            let key = try reader.string()
            let at = try reader.instant()
            guard context.holds(kind, key), expiries[kind, key] == nil else { throw .malformed }
            expiries[kind, key] = at
        }
        return expiries
    }
}
