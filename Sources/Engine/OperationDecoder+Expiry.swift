import Rules

extension OperationDecoder {
    /// When the value an operation writes expires: `ttl` (a positive duration, from the write's instant) or
    /// `expiresAt` (an instant; one not after `now` is accepted and the value reads as missing at once), never
    /// both; `nil` when neither is given (docs/api.md, "Expiring values").
    static func expiry(_ reader: FieldReader, now: Instant) throws(InvalidField) -> Instant? {
        let path = reader.path
        let ttl = reader.object["ttl"]
        if ttl != nil, reader.object["expiresAt"] != nil {
            throw InvalidField(path + ".expiresAt", "\(path).expiresAt cannot be given with \(path).ttl: choose one")
        }
        if let ttl {
            guard let length = DurationText.parse(ttl), length > 0 else {
                throw InvalidField(path + ".ttl", "\(path).ttl must be a positive duration such as \"90s\", \"7d\" or a number of seconds")
            }
            return now + length
        }
        return try reader.instant("expiresAt")
    }
}
