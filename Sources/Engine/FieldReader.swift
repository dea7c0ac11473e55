import Rules

/// Typed reads of one operation's fields, each error naming `ops[i].field`.
struct FieldReader {
    let object: JSONObject
    let path: String

    /// A counter, event, flag, attribute or segment name. Its length is a configurable limit (`limits.maxKeyBytes`),
    /// which the store enforces on the write (422 `limit_exceeded`); here only its shape is checked.
    func key(_ name: String) throws(InvalidField) -> String {
        guard case .string(let text)? = object[name] else { throw InvalidField("\(path).\(name)", "\(path).\(name) must be a string") }
        guard Identifier.isValidKey(text) else {
            throw InvalidField("\(path).\(name)", "\(path).\(name) must be non-empty UTF-8 without control characters")
        }
        return text
    }

    func integer(_ name: String, default fallback: Int? = nil) throws(InvalidField) -> Int {
        guard let value = object[name] else {
            if let fallback { return fallback }
            throw InvalidField("\(path).\(name)", "\(path).\(name) is required")
        }
        guard let number = value.numberValue, number.isIntegerLiteral, let integer = number.int else {
            throw InvalidField("\(path).\(name)", "\(path).\(name) must be an integer")
        }
        return integer
    }

    func boolean(_ name: String) throws(InvalidField) -> Bool {
        guard case .bool(let value)? = object[name] else { throw InvalidField("\(path).\(name)", "\(path).\(name) must be a boolean") }
        return value
    }

    func instant(_ name: String) throws(InvalidField) -> Instant? {
        guard let value = object[name] else { return nil }
        guard case .string(let text) = value, let instant = ISO8601.parse(text) else {
            throw InvalidField("\(path).\(name)", "\(path).\(name) must be an ISO 8601 date-time")
        }
        return instant
    }
}
